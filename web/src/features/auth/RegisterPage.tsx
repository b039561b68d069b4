import { useEffect } from 'react';
import { Alert, App, Button, Divider, Form, Input, Space, Typography } from 'antd';
import { LockOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PASSWORD_MIN, USERNAME_MAX, type RegisterBody } from '@aigw/contracts';
import { useStatus } from '../../app/hooks';
import { useRegisterMutation, useSendVerificationCodeMutation } from './api';
import { AuthCard } from './AuthCard';
import { AuthForm, EmailItem } from './AuthForm';
import { inviteCode, rememberInviteCode } from './invite';
import { ThirdPartyLogin } from './ThirdPartyLogin';
import { Turnstile, useTurnstileGate } from './Turnstile';
import { RESEND_LOCK_SECONDS, useCountdown } from './use-countdown';

interface RegisterForm {
  username: string;
  password: string;
  password2: string;
  email?: string;
  verification_code?: string;
}

/** /register: username and password (plus email and code when verification is on), invite code from ?aff=. */
export function RegisterPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const status = useStatus();
  const { message } = App.useApp();
  const [searchParams] = useSearchParams();
  const [register, { isLoading }] = useRegisterMutation();
  const [sendCode, { isLoading: sending }] = useSendVerificationCodeMutation();
  const resend = useCountdown();
  const turnstile = useTurnstileGate();
  const [form] = Form.useForm<RegisterForm>();
  const affFromLink = searchParams.get('aff');

  useEffect(() => rememberInviteCode(affFromLink), [affFromLink]);

  const emailVerification = Boolean(status?.email_verification);
  // Before the first status answer (a fresh browser) the form shows; the server refuses if closed.
  const registerOpen = status?.register_enabled !== false;
  const passwordRegisterOpen = status?.password_register_enabled !== false;

  const required = intl.formatMessage({ id: 'pages.register.required', defaultMessage: '请输入用户名和密码！' });

  const onSendCode = async () => {
    const { email } = await form.validateFields(['email']).catch(() => ({ email: undefined }));
    if (!email || !turnstile.ready()) return;
    const sent = await sendCode({ email: email.trim(), turnstile: turnstile.token })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!sent) return;
    void message.success(intl.formatMessage({ id: 'pages.register.codeSent', defaultMessage: '验证码发送成功，请检查你的邮箱！' }));
    resend.start(RESEND_LOCK_SECONDS);
  };

  const onFinish = async (values: RegisterForm) => {
    if (!turnstile.ready()) return;
    const aff = inviteCode(affFromLink);
    const body: RegisterBody = {
      username: values.username.trim(),
      password: values.password,
      password2: values.password2,
      ...(emailVerification ? { email: values.email?.trim() ?? '', verification_code: values.verification_code?.trim() ?? '' } : {}),
      ...(aff ? { aff_code: aff } : {}),
    };
    const done = await register({ ...body, turnstile: turnstile.token })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!done) return;
    void message.success(intl.formatMessage({ id: 'pages.register.success', defaultMessage: '注册成功！' }));
    void navigate('/login');
  };

  const closedNotice = !registerOpen
    ? intl.formatMessage({ id: 'pages.register.closed', defaultMessage: '管理员已关闭新用户注册' })
    : !passwordRegisterOpen
      ? intl.formatMessage({ id: 'pages.register.passwordClosed', defaultMessage: '管理员已关闭密码注册，请使用第三方账户注册' })
      : null;

  return (
    <AuthCard title={intl.formatMessage({ id: 'pages.register.title', defaultMessage: '新用户注册' })}>
      {closedNotice ? (
        <Alert type="warning" showIcon title={closedNotice} />
      ) : (
        <AuthForm<RegisterForm> form={form} onFinish={(values) => void onFinish(values)}>
          <Form.Item name="username" rules={[{ required: true, whitespace: true, message: required }]}>
            <Input
              size="large"
              prefix={<UserOutlined />}
              autoComplete="username"
              maxLength={USERNAME_MAX}
              placeholder={intl.formatMessage({ id: 'pages.register.username.placeholder', defaultMessage: '请输入用户名' })}
            />
          </Form.Item>
          {/* docs/product.md section 4: the placeholder says 8 to 20 characters but only the minimum is checked. */}
          <Form.Item
            name="password"
            rules={[
              { required: true, message: required },
              { min: PASSWORD_MIN, message: intl.formatMessage({ id: 'pages.register.password.min', defaultMessage: '密码长度不得小于 8 位！' }) },
            ]}
          >
            <Input.Password
              size="large"
              prefix={<LockOutlined />}
              autoComplete="new-password"
              placeholder={intl.formatMessage({ id: 'pages.register.password.placeholder', defaultMessage: '输入密码，最短 8 位，最长 20 位' })}
            />
          </Form.Item>
          <Form.Item
            name="password2"
            dependencies={['password']}
            rules={[
              ({ getFieldValue }) => ({
                validator: (_rule, value: string | undefined) =>
                  (value ?? '') === (getFieldValue('password') ?? '')
                    ? Promise.resolve()
                    : Promise.reject(new Error(intl.formatMessage({ id: 'pages.register.password.mismatch', defaultMessage: '两次输入的密码不一致' }))),
              }),
            ]}
          >
            <Input.Password
              size="large"
              prefix={<LockOutlined />}
              autoComplete="new-password"
              placeholder={intl.formatMessage({ id: 'pages.register.password2.placeholder', defaultMessage: '再次输入密码' })}
            />
          </Form.Item>
          {emailVerification && (
            <>
              <Form.Item>
                <Space.Compact block>
                  <EmailItem noStyle placeholder={intl.formatMessage({ id: 'pages.register.email.placeholder', defaultMessage: '输入邮箱地址' })} />
                  <Button size="large" loading={sending} disabled={resend.remaining > 0} onClick={() => void onSendCode()}>
                    {resend.remaining > 0
                      ? intl.formatMessage({ id: 'pages.register.code.resend', defaultMessage: '重新发送 ({seconds})' }, { seconds: resend.remaining })
                      : intl.formatMessage({ id: 'pages.register.code.send', defaultMessage: '获取验证码' })}
                  </Button>
                </Space.Compact>
              </Form.Item>
              <Form.Item
                name="verification_code"
                rules={[
                  {
                    required: true,
                    whitespace: true,
                    message: intl.formatMessage({ id: 'pages.register.code.required', defaultMessage: '请输入邮箱验证码！' }),
                  },
                ]}
              >
                <Input
                  size="large"
                  prefix={<SafetyOutlined />}
                  autoComplete="one-time-code"
                  maxLength={32}
                  placeholder={intl.formatMessage({ id: 'pages.register.code.placeholder', defaultMessage: '输入验证码' })}
                />
              </Form.Item>
            </>
          )}
          <Turnstile gate={turnstile} />
          <Button type="primary" htmlType="submit" size="large" block loading={isLoading}>
            {intl.formatMessage({ id: 'pages.register.submit', defaultMessage: '注册' })}
          </Button>
        </AuthForm>
      )}
      <Typography.Paragraph style={{ marginTop: 16 }}>
        {intl.formatMessage({ id: 'pages.register.haveAccount', defaultMessage: '已有账户？' })}{' '}
        <Link to="/login">{intl.formatMessage({ id: 'pages.register.toLogin', defaultMessage: '点击登录' })}</Link>
      </Typography.Paragraph>
      <ThirdPartyLogin divider={<Divider plain>{intl.formatMessage({ id: 'pages.register.thirdParty', defaultMessage: '第三方注册或登录' })}</Divider>} />
    </AuthCard>
  );
}

export default RegisterPage;
