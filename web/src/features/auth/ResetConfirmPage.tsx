import { useState } from 'react';
import { Alert, App, Button, Form, Input, Typography } from 'antd';
import { CopyOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { Link, useSearchParams } from 'react-router';
import { copyText } from '../../lib/clipboard';
import { useConfirmPasswordResetMutation } from './api';
import { AuthCard } from './AuthCard';

/**
 * /user/reset?email=&token= (the emailed link): on confirmation the server sets a random
 * password and answers it; the page shows it and copies it. The user confirms with a click
 * because the token is single-use (a mail scanner opening the link must not spend it) and the
 * clipboard accepts text only right after a user gesture. The reset ends every session and
 * revokes the system access token, which the page says before and after.
 */
export function ResetConfirmPage() {
  const intl = useIntl();
  const { message } = App.useApp();
  const [searchParams] = useSearchParams();
  const [confirmReset, { isLoading }] = useConfirmPasswordResetMutation();
  const [password, setPassword] = useState<string>();
  const email = searchParams.get('email') ?? '';
  const token = searchParams.get('token') ?? '';

  const copy = async (text: string) => {
    // On failure copyText opens the manual-copy dialog itself.
    if (await copyText(text)) void message.success(intl.formatMessage({ id: 'pages.resetConfirm.copied', defaultMessage: '新密码已复制到剪贴板' }));
  };

  const onConfirm = async () => {
    const answer = await confirmReset({ email, token })
      .unwrap()
      .catch(() => null);
    if (answer === null) return;
    setPassword(answer);
    await copy(answer);
  };

  const title = intl.formatMessage({ id: 'pages.resetConfirm.title', defaultMessage: '密码重置确认' });
  if (!email || !token) {
    return (
      <AuthCard title={title}>
        <Alert
          type="error"
          showIcon
          title={intl.formatMessage({ id: 'pages.resetConfirm.invalidLink', defaultMessage: '无效的重置链接，请重新发起密码重置' })}
        />
        <Typography.Paragraph style={{ marginTop: 16 }}>
          <Link to="/reset">{intl.formatMessage({ id: 'pages.resetConfirm.toReset', defaultMessage: '重新发起密码重置' })}</Link>
        </Typography.Paragraph>
      </AuthCard>
    );
  }

  const emailLabel = intl.formatMessage({ id: 'pages.resetConfirm.email', defaultMessage: '邮箱地址' });
  const passwordLabel = intl.formatMessage({ id: 'pages.resetConfirm.newPassword', defaultMessage: '新密码' });
  return (
    <AuthCard title={title}>
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 16 }}
        title={intl.formatMessage({
          id: 'pages.resetConfirm.revokes',
          defaultMessage: '重置后，所有已登录的会话都会退出，系统访问令牌也会失效；如仍需令牌，请登录后重新生成。',
        })}
      />
      <Form layout="vertical">
        <Form.Item label={emailLabel}>
          <Input size="large" value={email} readOnly aria-label={emailLabel} />
        </Form.Item>
        {password !== undefined && (
          <Form.Item
            label={passwordLabel}
            extra={intl.formatMessage({ id: 'pages.resetConfirm.changeHint', defaultMessage: '请使用新密码登录，并尽快在个人设置中修改密码' })}
          >
            <Input
              size="large"
              value={password}
              readOnly
              aria-label={passwordLabel}
              suffix={
                <Button
                  type="text"
                  size="small"
                  icon={<CopyOutlined />}
                  aria-label={intl.formatMessage({ id: 'common.copy', defaultMessage: '复制' })}
                  onClick={() => void copy(password)}
                />
              }
            />
          </Form.Item>
        )}
        <Button type="primary" size="large" block loading={isLoading} disabled={password !== undefined} onClick={() => void onConfirm()}>
          {password !== undefined
            ? intl.formatMessage({ id: 'pages.resetConfirm.done', defaultMessage: '密码重置完成' })
            : intl.formatMessage({ id: 'pages.resetConfirm.submit', defaultMessage: '确认重置密码' })}
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16 }}>
        <Link to="/login">{intl.formatMessage({ id: 'pages.resetConfirm.toLogin', defaultMessage: '前往登录' })}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}

export default ResetConfirmPage;
