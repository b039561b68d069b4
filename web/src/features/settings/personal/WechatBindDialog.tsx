import { useState } from 'react';
import { App, Flex, Input, Modal, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../../../app/hooks';
import { useBindWechatMutation } from './api';

/** Binds WeChat: the official account's QR code, and the code it answers (valid 3 minutes). */
export function WechatBindDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const status = useStatus();
  const [code, setCode] = useState('');
  const [bindWechat, { isLoading }] = useBindWechatMutation();

  const submit = async () => {
    const trimmed = code.trim();
    // Spec accounts section 5: an empty code does nothing.
    if (!trimmed) return;
    const bound = await bindWechat({ code: trimmed }).unwrap().then(() => true, () => false);
    if (!bound) return;
    void message.success(intl.formatMessage({ id: 'pages.settings.personal.wechat.bound', defaultMessage: '微信账户绑定成功！' }));
    onClose();
  };

  return (
    <Modal
      open={open}
      title={intl.formatMessage({ id: 'pages.settings.personal.wechat.title', defaultMessage: '绑定微信' })}
      okText={intl.formatMessage({ id: 'pages.settings.personal.wechat.submit', defaultMessage: '绑定' })}
      okButtonProps={{ loading: isLoading }}
      onOk={() => void submit()}
      onCancel={onClose}
      afterClose={() => setCode('')}
    >
      <Flex vertical align="center" gap={12}>
        {status?.wechat_qrcode && (
          <img
            src={status.wechat_qrcode}
            alt={intl.formatMessage({ id: 'pages.settings.personal.wechat.qrcode', defaultMessage: '微信公众号二维码' })}
            style={{ width: 200, maxWidth: '100%' }}
          />
        )}
        <Typography.Text type="secondary">
          {intl.formatMessage({ id: 'pages.settings.personal.wechat.hint', defaultMessage: '微信扫码关注公众号，输入「验证码」获取验证码（三分钟内有效）' })}
        </Typography.Text>
        <Input
          value={code}
          onChange={(event) => setCode(event.target.value)}
          onPressEnter={() => void submit()}
          placeholder={intl.formatMessage({ id: 'pages.settings.personal.wechat.code', defaultMessage: '验证码' })}
        />
      </Flex>
    </Modal>
  );
}
