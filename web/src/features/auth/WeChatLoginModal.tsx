import { useState } from 'react';
import { Button, Flex, Input, Modal, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../../app/hooks';
import { useWechatLoginMutation } from './api';
import { useSignIn } from './useSignIn';

/**
 * WeChat login: the user scans the official account's QR code, sends it the keyword and types
 * the code it answers (valid 3 minutes) here.
 */
export function WeChatLoginModal({ open, onClose }: { open: boolean; onClose(): void }) {
  const intl = useIntl();
  const status = useStatus();
  const signIn = useSignIn();
  const [code, setCode] = useState('');
  const [wechatLogin, { isLoading }] = useWechatLoginMutation();

  const submit = async () => {
    const trimmed = code.trim();
    // Spec: an empty code does nothing.
    if (!trimmed) return;
    const user = await wechatLogin({ code: trimmed }).unwrap().catch(() => null);
    if (!user) return;
    setCode('');
    onClose();
    signIn(user);
  };

  return (
    <Modal
      open={open}
      onCancel={onClose}
      title={intl.formatMessage({ id: 'pages.login.wechat.title', defaultMessage: '微信扫码登录' })}
      footer={null}
      destroyOnHidden
    >
      <Flex vertical align="center" gap={16}>
        {status?.wechat_qrcode && (
          <img
            src={status.wechat_qrcode}
            alt={intl.formatMessage({ id: 'pages.login.wechat.qrcode', defaultMessage: '微信公众号二维码' })}
            style={{ width: 200, maxWidth: '100%' }}
          />
        )}
        <Typography.Text>
          {intl.formatMessage({ id: 'pages.login.wechat.hint', defaultMessage: '微信扫码关注公众号，输入「验证码」获取验证码（三分钟内有效）' })}
        </Typography.Text>
        <Input
          value={code}
          onChange={(event) => setCode(event.target.value)}
          onPressEnter={() => void submit()}
          placeholder={intl.formatMessage({ id: 'pages.login.wechat.code', defaultMessage: '验证码' })}
          autoComplete="one-time-code"
          maxLength={32}
        />
        <Button type="primary" block loading={isLoading} onClick={() => void submit()}>
          {intl.formatMessage({ id: 'pages.login.submit', defaultMessage: '登录' })}
        </Button>
      </Flex>
    </Modal>
  );
}
