import { App } from 'antd';
import { useIntl } from 'react-intl';
import { WechatCodeDialog } from '../../auth/WechatCodeDialog';
import { useBindWechatMutation } from './api';

/** Binds WeChat: the code the official account answers ties it to this account. */
export function WechatBindDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [bindWechat, { isLoading }] = useBindWechatMutation();

  const bind = async (code: string) => {
    const bound = await bindWechat({ code })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (bound) void message.success(intl.formatMessage({ id: 'pages.settings.personal.wechat.bound', defaultMessage: '微信账户绑定成功！' }));
    return bound;
  };

  return (
    <WechatCodeDialog
      open={open}
      title={intl.formatMessage({ id: 'pages.settings.personal.wechat.title', defaultMessage: '绑定微信' })}
      submitText={intl.formatMessage({ id: 'pages.settings.personal.wechat.submit', defaultMessage: '绑定' })}
      submitting={isLoading}
      onSubmit={bind}
      onClose={onClose}
    />
  );
}
