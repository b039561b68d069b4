import { useState } from 'react';
import { App, Button, Card, Flex, Input, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, KeyOutlined, LockOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import type { User } from '@aigw/contracts';
import { copyText } from '../../../lib/clipboard';
import { useGenerateAccessTokenMutation } from './api';
import { ChangePasswordDialog } from './ChangePasswordDialog';
import { DeleteAccountDialog } from './DeleteAccountDialog';

/** The profile edit, the system access token, the password change and the deletion of the own account. */
export function SecurityCard({ user }: { user: User }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [generate, { isLoading }] = useGenerateAccessTokenMutation();
  // Shown only in this visit: the server keeps a hash, so the token cannot be read again.
  const [token, setToken] = useState('');
  const [dialog, setDialog] = useState<'password' | 'delete' | null>(null);

  const generateToken = async () => {
    const fresh = await generate()
      .unwrap()
      .catch(() => null);
    if (!fresh) return;
    setToken(fresh);
    if (await copyText(fresh)) {
      void message.success(intl.formatMessage({ id: 'pages.settings.personal.token.generated', defaultMessage: '令牌已重置并已复制到剪贴板' }));
    }
  };

  const copyToken = async () => {
    if (token && (await copyText(token))) {
      void message.success(intl.formatMessage({ id: 'pages.settings.personal.token.copied', defaultMessage: '系统令牌已复制到剪切板' }));
    }
  };

  const tokenLabel = intl.formatMessage({ id: 'pages.settings.personal.token.label', defaultMessage: '系统访问令牌' });

  return (
    <Card title={intl.formatMessage({ id: 'pages.settings.personal.security.title', defaultMessage: '安全设置' })}>
      <Flex vertical gap={8}>
        <Typography.Text strong>{tokenLabel}</Typography.Text>
        <Typography.Text type="secondary">
          {intl.formatMessage({
            id: 'pages.settings.personal.token.warning',
            defaultMessage: '生成新令牌后，之前的系统访问令牌将立即失效；新令牌只显示这一次，请妥善保存。',
          })}
        </Typography.Text>
        {token && <Input readOnly value={token} aria-label={tokenLabel} onClick={() => void copyToken()} style={{ cursor: 'pointer' }} />}
        <Flex gap={8} wrap style={{ marginTop: 8 }}>
          <Button icon={<KeyOutlined />} loading={isLoading} onClick={() => void generateToken()}>
            {intl.formatMessage({ id: 'pages.settings.personal.token.generate', defaultMessage: '生成系统访问令牌' })}
          </Button>
          <Button icon={<EditOutlined />} onClick={() => void navigate('/user/edit')}>
            {intl.formatMessage({ id: 'pages.settings.personal.profile.open', defaultMessage: '修改个人信息' })}
          </Button>
          <Button icon={<LockOutlined />} onClick={() => setDialog('password')}>
            {intl.formatMessage({ id: 'pages.settings.personal.password.open', defaultMessage: '修改密码' })}
          </Button>
          <Button danger icon={<DeleteOutlined />} onClick={() => setDialog('delete')}>
            {intl.formatMessage({ id: 'pages.settings.personal.delete.open', defaultMessage: '删除个人账户' })}
          </Button>
        </Flex>
      </Flex>
      <ChangePasswordDialog open={dialog === 'password'} onClose={() => setDialog(null)} />
      <DeleteAccountDialog open={dialog === 'delete'} username={user.username} onClose={() => setDialog(null)} />
    </Card>
  );
}
