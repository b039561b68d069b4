import { Button, Form, Input, Typography } from 'antd';
import { SafetyOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import type { LoginResult } from '@aigw/contracts';
import { AuthForm } from './AuthForm';
import { useLoginTwoFactorMutation } from './second-factor-api';

/**
 * The second step of a sign-in for a user with two-factor authentication: the code of the
 * authenticator app, or a backup code. The password step left a pending sign-in in this browser.
 */
export function TwoFactorLoginStep({ onSignedIn, onBack }: { onSignedIn(user: LoginResult): void; onBack(): void }) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const [loginTwoFactor, { isLoading }] = useLoginTwoFactorMutation();
  const required = t({ id: 'pages.login.twoFactor.required', defaultMessage: '请输入验证码' });

  const onFinish = async ({ code }: { code: string }) => {
    const user = await loginTwoFactor({ code: code.trim() })
      .unwrap()
      .catch(() => null);
    if (user) onSignedIn(user);
  };

  return (
    <AuthForm<{ code: string }> onFinish={(values) => void onFinish(values)}>
      <Typography.Paragraph type="secondary">
        {t({ id: 'pages.login.twoFactor.intro', defaultMessage: '此账户已启用两步验证，请输入身份验证器应用中的 6 位验证码，或一个备用码。' })}
      </Typography.Paragraph>
      <Form.Item name="code" rules={[{ required: true, whitespace: true, message: required }]}>
        <Input
          size="large"
          autoFocus
          prefix={<SafetyOutlined />}
          autoComplete="one-time-code"
          placeholder={t({ id: 'pages.login.twoFactor.placeholder', defaultMessage: '验证码或备用码' })}
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" size="large" block loading={isLoading}>
        {t({ id: 'pages.login.twoFactor.submit', defaultMessage: '验证并登录' })}
      </Button>
      <Button type="link" block onClick={onBack} style={{ marginTop: 8 }}>
        {t({ id: 'pages.login.twoFactor.back', defaultMessage: '返回' })}
      </Button>
    </AuthForm>
  );
}
