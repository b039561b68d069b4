import { useState } from 'react';
import { App, Button, Form, Input, Typography } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { EMAIL_MAX } from '@aigw/contracts';
import { useSendPasswordResetMutation } from './api';
import { AuthCard } from './AuthCard';
import { Turnstile, useTurnstileGate } from './Turnstile';
import { useCountdown } from './useCountdown';

/** Spec: the submit button is disabled for 30 seconds after use (the server locks resending too). */
const RESEND_LOCK_SECONDS = 30;

/** /reset: sends a password-reset link to the account's email. */
export function ResetPage() {
  const intl = useIntl();
  const { message } = App.useApp();
  const [sendReset, { isLoading }] = useSendPasswordResetMutation();
  const lock = useCountdown();
  const turnstile = useTurnstileGate();
  const [submitted, setSubmitted] = useState(false);

  const onFinish = async ({ email }: { email: string }) => {
    setSubmitted(true);
    if (!turnstile.ready()) return;
    const sent = await sendReset({ email: email.trim(), turnstile: turnstile.token }).unwrap().then(() => true, () => false);
    if (!sent) return;
    lock.start(RESEND_LOCK_SECONDS);
    void message.success(intl.formatMessage({ id: 'pages.reset.sent', defaultMessage: '重置邮件发送成功，请检查邮箱！' }));
  };

  return (
    <AuthCard title={intl.formatMessage({ id: 'pages.reset.title', defaultMessage: '密码重置' })}>
      <Form<{ email: string }>
        layout="vertical"
        requiredMark={false}
        onFinish={onFinish}
        onFinishFailed={() => setSubmitted(true)}
        validateTrigger={submitted ? 'onChange' : 'onSubmit'}
      >
        <Form.Item
          name="email"
          // Emails hold no spaces: a pasted address loses its padding before the format check.
          normalize={(value: string) => value.trim()}
          rules={[
            { required: true, whitespace: true, message: intl.formatMessage({ id: 'pages.reset.email.required', defaultMessage: '请输入邮箱地址！' }) },
            { type: 'email', max: EMAIL_MAX, message: intl.formatMessage({ id: 'pages.reset.email.invalid', defaultMessage: '邮箱地址格式不正确' }) },
          ]}
        >
          <Input
            size="large"
            prefix={<MailOutlined />}
            inputMode="email"
            autoComplete="email"
            placeholder={intl.formatMessage({ id: 'pages.reset.email.placeholder', defaultMessage: '邮箱地址' })}
          />
        </Form.Item>
        <Turnstile gate={turnstile} />
        <Button type="primary" htmlType="submit" size="large" block loading={isLoading} disabled={lock.remaining > 0}>
          {lock.remaining > 0
            ? intl.formatMessage({ id: 'pages.reset.retry', defaultMessage: '重试 ({seconds})' }, { seconds: lock.remaining })
            : intl.formatMessage({ id: 'pages.reset.submit', defaultMessage: '提交' })}
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16 }}>
        <Link to="/login">{intl.formatMessage({ id: 'pages.reset.toLogin', defaultMessage: '返回登录' })}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}

export default ResetPage;
