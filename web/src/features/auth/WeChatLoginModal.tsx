import { useIntl } from 'react-intl';
import { useWechatLoginMutation } from './api';
import { useSignIn } from './useSignIn';
import { WechatCodeDialog } from './WechatCodeDialog';

/** WeChat login: the code the official account answers signs the user in. */
export function WeChatLoginModal({ open, onClose }: { open: boolean; onClose(): void }) {
  const intl = useIntl();
  const signIn = useSignIn();
  const [wechatLogin, { isLoading }] = useWechatLoginMutation();

  const login = async (code: string) => {
    const user = await wechatLogin({ code })
      .unwrap()
      .catch(() => null);
    if (user) signIn(user);
    return user !== null;
  };

  return (
    <WechatCodeDialog
      open={open}
      title={intl.formatMessage({ id: 'pages.login.wechat.title', defaultMessage: '微信扫码登录' })}
      submitText={intl.formatMessage({ id: 'pages.login.submit', defaultMessage: '登录' })}
      submitting={isLoading}
      onSubmit={login}
      onClose={onClose}
    />
  );
}
