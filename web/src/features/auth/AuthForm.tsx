import { useState, type ReactNode } from 'react';
import { Form, Input, type FormProps } from 'antd';
import { MailOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { EMAIL_MAX } from '@aigw/contracts';

/**
 * The form of the account screens (login, register, reset): fields are checked when it is first
 * sent, then as they change, so nothing is flagged while the user is still typing.
 */
type AuthFormProps<Values> = Omit<FormProps<Values>, 'layout' | 'onFinishFailed' | 'validateTrigger' | 'children'> & { children: ReactNode };

export function AuthForm<Values extends object>({ onFinish, children, ...props }: AuthFormProps<Values>) {
  const [submitted, setSubmitted] = useState(false);
  return (
    <Form<Values>
      layout="vertical"
      requiredMark={false}
      {...props}
      onFinish={(values) => {
        setSubmitted(true);
        onFinish?.(values);
      }}
      onFinishFailed={() => setSubmitted(true)}
      validateTrigger={submitted ? 'onChange' : 'onSubmit'}
    >
      {children}
    </Form>
  );
}

/** The email field (form field `email`) of the register and reset screens; `noStyle` inside a compact group. */
export function EmailItem({ placeholder, noStyle }: { placeholder: string; noStyle?: boolean }) {
  const intl = useIntl();
  return (
    <Form.Item
      name="email"
      noStyle={noStyle}
      // Emails hold no spaces: a pasted address loses its padding before the format check.
      normalize={(value: string) => value.trim()}
      rules={[
        { required: true, whitespace: true, message: intl.formatMessage({ id: 'pages.auth.email.required', defaultMessage: '请输入邮箱地址！' }) },
        { type: 'email', max: EMAIL_MAX, message: intl.formatMessage({ id: 'pages.auth.email.invalid', defaultMessage: '邮箱地址格式不正确' }) },
      ]}
    >
      <Input size="large" prefix={<MailOutlined />} inputMode="email" autoComplete="email" placeholder={placeholder} />
    </Form.Item>
  );
}
