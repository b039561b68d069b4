import { Alert, App, Form, Input, Modal } from 'antd';
import { useIntl } from 'react-intl';
import { PASSWORD_MAX, PASSWORD_MIN } from '@aigw/contracts';
import { useChangeOwnPasswordMutation } from './api';

interface PasswordForm {
  original_password: string;
  password: string;
  password2: string;
}

interface ChangePasswordDialogProps {
  open: boolean;
  onClose(): void;
  /**
   * The server refuses everything else until the password changes (the factory root password on
   * a server reachable from other machines, rule R8): the dialog says why and stays until changed.
   */
  required?: boolean;
}

/**
 * Changes the own password: the current one, a new one (8-20) and its confirmation. The server
 * then ends the other sessions and revokes the system access token; the dialog says so first.
 */
export function ChangePasswordDialog({ open, onClose, required = false }: ChangePasswordDialogProps) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [form] = Form.useForm<PasswordForm>();
  const [changePassword, { isLoading }] = useChangeOwnPasswordMutation();

  const mismatch = intl.formatMessage({ id: 'pages.settings.personal.password.mismatch', defaultMessage: '两次输入的密码不一致！' });

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const changed = await changePassword({ password: values.password, original_password: values.original_password })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!changed) return;
    void message.success(intl.formatMessage({ id: 'pages.settings.personal.password.changed', defaultMessage: '密码修改成功！' }));
    onClose();
  };

  return (
    <Modal
      open={open}
      title={intl.formatMessage({ id: 'pages.settings.personal.password.title', defaultMessage: '修改密码' })}
      okText={intl.formatMessage({ id: 'pages.settings.personal.password.submit', defaultMessage: '确认修改' })}
      okButtonProps={{ loading: isLoading }}
      onOk={() => void submit()}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
      closable={!required}
      mask={{ closable: !required }}
      keyboard={!required}
      cancelButtonProps={required ? { style: { display: 'none' } } : undefined}
    >
      {required && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={intl.formatMessage({
            id: 'pages.settings.personal.password.required',
            defaultMessage: '超级管理员仍在使用出厂默认密码，且本服务可从其他机器访问：修改密码之前，其他操作都会被拒绝。',
          })}
        />
      )}
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 16 }}
        title={intl.formatMessage({
          id: 'pages.settings.personal.password.revokes',
          defaultMessage: '修改密码后，其他设备上的登录会退出，系统访问令牌也会失效；如仍需令牌，请重新生成。',
        })}
      />
      {/* Named: its field ids must not clash with the sign-in form's when it opens over the login page. */}
      <Form<PasswordForm> form={form} name="change-password" layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Form.Item
          name="original_password"
          label={intl.formatMessage({ id: 'pages.settings.personal.password.original', defaultMessage: '原密码' })}
          rules={[
            { required: true, message: intl.formatMessage({ id: 'pages.settings.personal.password.originalRequired', defaultMessage: '请输入原密码！' }) },
          ]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="password"
          label={intl.formatMessage({ id: 'pages.settings.personal.password.new', defaultMessage: '新密码' })}
          rules={[
            { required: true, message: intl.formatMessage({ id: 'pages.settings.personal.password.newRequired', defaultMessage: '请输入新密码！' }) },
            {
              min: PASSWORD_MIN,
              max: PASSWORD_MAX,
              message: intl.formatMessage(
                { id: 'pages.settings.personal.password.length', defaultMessage: '密码长度应为 {min} 到 {max} 个字符' },
                { min: PASSWORD_MIN, max: PASSWORD_MAX },
              ),
            },
          ]}
        >
          <Input.Password
            autoComplete="new-password"
            placeholder={intl.formatMessage(
              { id: 'pages.settings.personal.password.placeholder', defaultMessage: '{min} 到 {max} 个字符' },
              { min: PASSWORD_MIN, max: PASSWORD_MAX },
            )}
          />
        </Form.Item>
        <Form.Item
          name="password2"
          dependencies={['password']}
          label={intl.formatMessage({ id: 'pages.settings.personal.password.confirm', defaultMessage: '确认新密码' })}
          rules={[
            ({ getFieldValue }) => ({
              validator: (_, value: string | undefined) =>
                (value ?? '') === (getFieldValue('password') ?? '') ? Promise.resolve() : Promise.reject(new Error(mismatch)),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
