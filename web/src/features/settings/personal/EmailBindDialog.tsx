import { App, Button, Form, Input, Modal, Space } from 'antd';
import { useIntl } from 'react-intl';
import { emailBindBodySchema } from '@aigw/contracts';
import { useSendVerificationCodeMutation } from '../../auth/api';
import { Turnstile, useTurnstileGate } from '../../auth/Turnstile';
import { RESEND_LOCK_SECONDS, useCountdown } from '../../auth/use-countdown';
import { useBindEmailMutation } from './api';

interface EmailBindForm {
  email: string;
  code: string;
}

/** Binds an email: a code is sent to it (resend locked 30 s), then email and code are checked by the server. */
export function EmailBindDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [form] = Form.useForm<EmailBindForm>();
  const turnstile = useTurnstileGate();
  const countdown = useCountdown();
  const [sendCode, { isLoading: sending }] = useSendVerificationCodeMutation();
  const [bindEmail, { isLoading: binding }] = useBindEmailMutation();

  const emailRequired = intl.formatMessage({ id: 'pages.settings.personal.email.required', defaultMessage: '请输入邮箱！' });
  const emailInvalid = intl.formatMessage({ id: 'pages.settings.personal.email.invalid', defaultMessage: '请输入正确的邮箱地址！' });
  const codeRequired = intl.formatMessage({ id: 'pages.settings.personal.email.codeRequired', defaultMessage: '请输入邮箱验证码！' });

  const requestCode = async () => {
    const values = await form.validateFields(['email']).catch(() => null);
    if (!values || !turnstile.ready()) return;
    const sent = await sendCode({ email: values.email.trim(), turnstile: turnstile.token })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!sent) return;
    countdown.start(RESEND_LOCK_SECONDS);
    void message.success(intl.formatMessage({ id: 'pages.settings.personal.email.codeSent', defaultMessage: '验证码发送成功，请检查邮箱！' }));
  };

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const bound = await bindEmail({ email: values.email.trim(), code: values.code.trim() })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!bound) return;
    void message.success(intl.formatMessage({ id: 'pages.settings.personal.email.bound', defaultMessage: '邮箱账户绑定成功！' }));
    onClose();
  };

  return (
    <Modal
      open={open}
      title={intl.formatMessage({ id: 'pages.settings.personal.email.title', defaultMessage: '绑定邮箱地址' })}
      okText={intl.formatMessage({ id: 'pages.settings.personal.email.submit', defaultMessage: '确认绑定' })}
      okButtonProps={{ loading: binding }}
      onOk={() => void submit()}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
    >
      <Form<EmailBindForm> form={form} layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Form.Item label={intl.formatMessage({ id: 'pages.settings.personal.email.email', defaultMessage: '邮箱地址' })} required>
          <Space.Compact block>
            <Form.Item
              name="email"
              noStyle
              rules={[
                { required: true, whitespace: true, message: emailRequired },
                // The same address rule as the server's bind query (contracts).
                {
                  validator: (_, value: string | undefined) =>
                    !value?.trim() || emailBindBodySchema.shape.email.safeParse(value).success ? Promise.resolve() : Promise.reject(new Error(emailInvalid)),
                },
              ]}
            >
              <Input
                type="email"
                autoComplete="email"
                placeholder={intl.formatMessage({ id: 'pages.settings.personal.email.placeholder', defaultMessage: '输入邮箱地址' })}
              />
            </Form.Item>
            <Button onClick={() => void requestCode()} loading={sending} disabled={countdown.remaining > 0}>
              {countdown.remaining > 0
                ? intl.formatMessage({ id: 'pages.settings.personal.email.resend', defaultMessage: '重新发送 ({seconds})' }, { seconds: countdown.remaining })
                : intl.formatMessage({ id: 'pages.settings.personal.email.getCode', defaultMessage: '获取验证码' })}
            </Button>
          </Space.Compact>
        </Form.Item>
        <Form.Item
          name="code"
          label={intl.formatMessage({ id: 'pages.settings.personal.email.code', defaultMessage: '验证码' })}
          rules={[{ required: true, whitespace: true, message: codeRequired }]}
        >
          <Input placeholder={intl.formatMessage({ id: 'pages.settings.personal.email.codePlaceholder', defaultMessage: '输入邮箱验证码' })} />
        </Form.Item>
        {open && <Turnstile gate={turnstile} />}
      </Form>
    </Modal>
  );
}
