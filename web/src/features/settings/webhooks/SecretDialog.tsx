import { Alert, App, Button, Input, Modal, Space, Typography } from 'antd';
import { CopyOutlined } from '@ant-design/icons';
import { webhookHeaders } from '@aigw/contracts';
import { useText } from '../../../app/use-text';
import { copyText } from '../../../lib/clipboard';

interface SecretDialogProps {
  url: string;
  secret: string;
  onClose: () => void;
}

/** The signing secret, right after create or rotate: the only time the server ever shows it. */
export function SecretDialog({ url, secret, onClose }: SecretDialogProps) {
  const t = useText();
  const { message } = App.useApp();
  const copy = async () => {
    if (await copyText(secret)) void message.success(t('pages.settings.webhooks.secret.copied', '密钥已复制'));
  };
  return (
    <Modal
      open
      title={t('pages.settings.webhooks.secret.title', '签名密钥')}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('pages.settings.webhooks.secret.done', '我已保存')}
        </Button>
      }
      mask={{ closable: false }}
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Alert type="warning" showIcon title={t('pages.settings.webhooks.secret.once', '密钥只显示这一次，关闭后无法再查看，请立即复制并妥善保存。')} />
        <Typography.Text type="secondary">{url}</Typography.Text>
        <Space.Compact style={{ width: '100%' }}>
          <Input readOnly value={secret} aria-label={t('pages.settings.webhooks.secret.title', '签名密钥')} />
          <Button icon={<CopyOutlined />} onClick={() => void copy()}>
            {t('pages.settings.webhooks.secret.copy', '复制')}
          </Button>
        </Space.Compact>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
          {t(
            'pages.settings.webhooks.secret.verify',
            '接收方用它校验 {signature} 请求头：其值为 sha256= 加上 HMAC-SHA256（密钥，“{timestamp} 的值.请求体原文”）的十六进制。详见 docs/events.md。',
            { signature: webhookHeaders.signature, timestamp: webhookHeaders.timestamp },
          )}
        </Typography.Paragraph>
      </Space>
    </Modal>
  );
}
