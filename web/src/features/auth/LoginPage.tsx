import { useEffect, useRef, useState } from 'react';
import { App, Button, Divider, Form, Input, Typography } from 'antd';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import type { LoginResult } from '@aigw/contracts';
import { useStatus } from '../../app/hooks';
import { signedIn } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { ChangePasswordDialog } from '../settings/personal/ChangePasswordDialog';
import { useLoginMutation } from './api';
import { AuthCard } from './AuthCard';
import { AuthForm } from './AuthForm';
import { ThirdPartyLogin } from './ThirdPartyLogin';
import { PasskeyLoginButton } from './PasskeyLoginButton';
import { TwoFactorLoginStep } from './TwoFactorLoginStep';
import { Turnstile, useTurnstileGate } from './Turnstile';

interface LoginForm {
  username: string;
  password: string;
}

/** /login: username-or-email and password, third-party buttons by the status flags. */
export function LoginPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const status = useStatus();
  const { message, modal } = App.useApp();
  const [searchParams] = useSearchParams();
  const [login, { isLoading }] = useLoginMutation();
  const turnstile = useTurnstileGate();
  const [form] = Form.useForm<LoginForm>();
  const warnedExpired = useRef(false);
  // The password was right and the account has 2FA (or a third-party login said so): the code comes next.
  const location = useLocation();
  const [twoFactor, setTwoFactor] = useState((location.state as { twoFactor?: boolean } | null)?.twoFactor === true);
  // Signed in, but the server refuses everything else until the factory password is changed (rule R8):
  // from this page's sign-in, or a third-party one that sent the browser here (also from this page).
  const [passwordChange, setPasswordChange] = useState(false);
  const sentForPasswordChange = (location.state as { passwordChange?: boolean } | null)?.passwordChange === true;
  useEffect(() => {
    if (sentForPasswordChange) setPasswordChange(true);
  }, [sentForPasswordChange]);

  useEffect(() => {
    if (searchParams.get('expired') === 'true' && !warnedExpired.current) {
      warnedExpired.current = true;
      void message.warning(intl.formatMessage({ id: 'pages.login.expired', defaultMessage: '未登录或登录已过期，请重新登录！' }));
    }
  }, [intl, message, searchParams]);

  const required = intl.formatMessage({ id: 'pages.login.required', defaultMessage: '请输入用户名和密码！' });

  const onFinish = async (values: LoginForm) => {
    if (!turnstile.ready()) return;
    const answer = await login({ username: values.username.trim(), password: values.password, turnstile: turnstile.token })
      .unwrap()
      .catch(() => null);
    if (!answer) return;
    if ('require_2fa' in answer) setTwoFactor(true);
    else finish(answer);
  };

  const finish = (user: LoginResult) => {
    const { default_password: defaultPassword, require_password_change: passwordChangeRequired, ...record } = user;
    dispatch(signedIn(record));
    void message.success(intl.formatMessage({ id: 'pages.login.success', defaultMessage: '登录成功！' }));
    if (passwordChangeRequired) {
      setPasswordChange(true);
      return;
    }
    void navigate('/token');
    if (defaultPassword) {
      modal.warning({
        title: intl.formatMessage({ id: 'pages.login.defaultPassword.title', defaultMessage: '安全提示' }),
        content: intl.formatMessage({ id: 'pages.login.defaultPassword', defaultMessage: '您正在使用默认密码！请立刻修改默认密码！' }),
        okText: intl.formatMessage({ id: 'pages.login.defaultPassword.change', defaultMessage: '去修改' }),
        onOk: () => void navigate('/setting'),
      });
    }
  };

  const passwordLogin = status?.password_login_enabled ?? true;

  return (
    <AuthCard title={intl.formatMessage({ id: 'pages.login.title', defaultMessage: '用户登录' })}>
      <ChangePasswordDialog
        open={passwordChange}
        required
        onClose={() => {
          setPasswordChange(false);
          void navigate('/token', { replace: true });
        }}
      />
      {twoFactor && <TwoFactorLoginStep onSignedIn={finish} onBack={() => setTwoFactor(false)} />}
      {!twoFactor && passwordLogin && (
        <AuthForm<LoginForm> form={form} onFinish={(values) => void onFinish(values)}>
          <Form.Item name="username" rules={[{ required: true, whitespace: true, message: required }]}>
            <Input
              size="large"
              prefix={<UserOutlined />}
              autoComplete="username"
              placeholder={intl.formatMessage({ id: 'pages.login.username.placeholder', defaultMessage: '用户名或邮箱' })}
            />
          </Form.Item>
          <Form.Item name="password" rules={[{ required: true, message: required }]}>
            <Input.Password
              size="large"
              prefix={<LockOutlined />}
              autoComplete="current-password"
              placeholder={intl.formatMessage({ id: 'pages.login.password.placeholder', defaultMessage: '密码' })}
            />
          </Form.Item>
          <Turnstile gate={turnstile} />
          <Button type="primary" htmlType="submit" size="large" block loading={isLoading}>
            {intl.formatMessage({ id: 'pages.login.submit', defaultMessage: '登录' })}
          </Button>
        </AuthForm>
      )}
      {!twoFactor && <PasskeyLoginButton onSignedIn={finish} />}
      <Typography.Paragraph style={{ marginTop: 16, display: 'flex', justifyContent: 'space-between' }}>
        <span>
          {intl.formatMessage({ id: 'pages.login.noAccount', defaultMessage: '没有账户？' })}{' '}
          <Link to="/register">{intl.formatMessage({ id: 'pages.login.toRegister', defaultMessage: '点击注册' })}</Link>
        </span>
        <span>
          {intl.formatMessage({ id: 'pages.login.forgot', defaultMessage: '忘记密码？' })}{' '}
          <Link to="/reset">{intl.formatMessage({ id: 'pages.login.toReset', defaultMessage: '点击重置' })}</Link>
        </span>
      </Typography.Paragraph>
      <ThirdPartyLogin divider={<Divider plain>{intl.formatMessage({ id: 'pages.login.thirdParty', defaultMessage: '第三方登录' })}</Divider>} />
    </AuthCard>
  );
}

export default LoginPage;
