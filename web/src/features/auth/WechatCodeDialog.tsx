import { useState } from 'react';
import { Button, Flex, Input, Modal, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../../app/hooks';

interface WechatCodeDialogProps {
  open: boolean;
  title: string;
  /** The submit button's text: log in, or bind. */
  submitText: string;
  submitting: boolean;
  /** Gets the trimmed code; resolves true when the server took it, which closes the dialog. */
  onSubmit(code: string): Promise<boolean>;
  onClose(): void;
}

/**
 * The WeChat code dialog of login and binding: the user scans the official account's QR code,
 * sends it the keyword and types the code it answers (valid 3 minutes) here.
 */
export function WechatCodeDialog({ open, title, submitText, submitting, onSubmit, onClose }: WechatCodeDialogProps) {
  const intl = useIntl();
  const status = useStatus();
  const [code, setCode] = useState('');

  const submit = async () => {
    const trimmed = code.trim();
    // An empty code does nothing (docs/product.md section 4).
    if (!trimmed) return;
    if (await onSubmit(trimmed)) onClose();
  };

  return (
    <Modal open={open} onCancel={onClose} title={title} footer={null} destroyOnHidden afterClose={() => setCode('')}>
      <Flex vertical align="center" gap={16}>
        {status?.wechat_qrcode && (
          <img
            src={status.wechat_qrcode}
            alt={intl.formatMessage({ id: 'wechat.qrcode', defaultMessage: '微信公众号二维码' })}
            style={{ width: 200, maxWidth: '100%' }}
          />
        )}
        <Typography.Text>
          {intl.formatMessage({ id: 'wechat.hint', defaultMessage: '微信扫码关注公众号，输入「验证码」获取验证码（三分钟内有效）' })}
        </Typography.Text>
        <Input
          value={code}
          onChange={(event) => setCode(event.target.value)}
          onPressEnter={() => void submit()}
          placeholder={intl.formatMessage({ id: 'wechat.code', defaultMessage: '验证码' })}
          autoComplete="one-time-code"
          maxLength={32}
        />
        <Button type="primary" block loading={submitting} onClick={() => void submit()}>
          {submitText}
        </Button>
      </Flex>
    </Modal>
  );
}
