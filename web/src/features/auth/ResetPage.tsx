import { App, Button, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useSendPasswordResetMutation } from './api';
import { AuthCard } from './AuthCard';
import { AuthForm, EmailItem } from './AuthForm';
import { Turnstile, useTurnstileGate } from './Turnstile';
import { RESEND_LOCK_SECONDS, useCountdown } from './use-countdown';

/** /reset: sends a password-reset link to the account's email. */
export function ResetPage() {
  const intl = useIntl();
  const { message } = App.useApp();
  const [sendReset, { isLoading }] = useSendPasswordResetMutation();
  const lock = useCountdown();
  const turnstile = useTurnstileGate();

  const onFinish = async ({ email }: { email: string }) => {
    if (!turnstile.ready()) return;
    const sent = await sendReset({ email: email.trim(), turnstile: turnstile.token })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!sent) return;
    lock.start(RESEND_LOCK_SECONDS);
    void message.success(intl.formatMessage({ id: 'pages.reset.sent', defaultMessage: '重置邮件发送成功，请检查邮箱！' }));
  };

  return (
    <AuthCard title={intl.formatMessage({ id: 'pages.reset.title', defaultMessage: '密码重置' })}>
      <AuthForm<{ email: string }> onFinish={(values) => void onFinish(values)}>
        <EmailItem placeholder={intl.formatMessage({ id: 'pages.reset.email.placeholder', defaultMessage: '邮箱地址' })} />
        <Turnstile gate={turnstile} />
        <Button type="primary" htmlType="submit" size="large" block loading={isLoading} disabled={lock.remaining > 0}>
          {lock.remaining > 0
            ? intl.formatMessage({ id: 'pages.reset.retry', defaultMessage: '重试 ({seconds})' }, { seconds: lock.remaining })
            : intl.formatMessage({ id: 'pages.reset.submit', defaultMessage: '提交' })}
        </Button>
      </AuthForm>
      <Typography.Paragraph style={{ marginTop: 16 }}>
        <Link to="/login">{intl.formatMessage({ id: 'pages.reset.toLogin', defaultMessage: '返回登录' })}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}

export default ResetPage;
