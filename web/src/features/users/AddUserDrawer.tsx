import { App, Button, Drawer, Form, Input, Space } from 'antd';
import { useIntl } from 'react-intl';
import { PASSWORD_MAX, PASSWORD_MIN } from '@aigw/contracts';
import { useDrawerSize } from '../../app/media';
import { useCreateUserMutation } from './api';
import { usePasswordRules, useUserFieldRules } from './rules';

interface AddUserForm {
  username: string;
  display_name: string;
  password: string;
}

interface Props {
  open: boolean;
  onClose: () => void;
}

/** Add user: username, display name and password; POST /api/user/. */
export function AddUserDrawer({ open, onClose }: Props) {
  const intl = useIntl();
  const { message } = App.useApp();
  const size = useDrawerSize();
  const [form] = Form.useForm<AddUserForm>();
  const [createUser, { isLoading }] = useCreateUserMutation();
  const rules = useUserFieldRules();
  const passwordRules = usePasswordRules();
  const required = intl.formatMessage({ id: 'pages.users.add.required', defaultMessage: '用户名和密码不能为空！' });

  const onFinish = async (values: AddUserForm) => {
    const displayName = values.display_name?.trim();
    const created = await createUser({
      username: values.username.trim(),
      password: values.password,
      ...(displayName ? { display_name: displayName } : {}),
    })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!created) return;
    void message.success(intl.formatMessage({ id: 'pages.users.add.success', defaultMessage: '用户账户创建成功！' }));
    form.resetFields();
    onClose();
  };

  return (
    <Drawer
      open={open}
      size={size}
      title={intl.formatMessage({ id: 'pages.users.add.title', defaultMessage: '添加用户' })}
      onClose={onClose}
      footer={
        <Space>
          <Button type="primary" loading={isLoading} onClick={() => form.submit()}>
            {intl.formatMessage({ id: 'common.submit', defaultMessage: '提交' })}
          </Button>
          <Button onClick={onClose}>{intl.formatMessage({ id: 'common.cancel', defaultMessage: '取消' })}</Button>
        </Space>
      }
    >
      <Form<AddUserForm> form={form} name="addUser" layout="vertical" onFinish={(values) => void onFinish(values)}>
        <Form.Item
          name="username"
          label={intl.formatMessage({ id: 'pages.users.field.username', defaultMessage: '用户名' })}
          rules={[{ required: true, whitespace: true, message: required }, rules.usernameMax]}
        >
          <Input autoComplete="off" placeholder={intl.formatMessage({ id: 'pages.users.field.username.placeholder', defaultMessage: '请输入用户名' })} />
        </Form.Item>
        <Form.Item
          name="display_name"
          label={intl.formatMessage({ id: 'pages.users.field.displayName', defaultMessage: '显示名称' })}
          rules={[rules.displayNameMax]}
        >
          <Input autoComplete="off" placeholder={intl.formatMessage({ id: 'pages.users.field.displayName.placeholder', defaultMessage: '请输入显示名称' })} />
        </Form.Item>
        <Form.Item
          name="password"
          label={intl.formatMessage({ id: 'pages.users.field.password', defaultMessage: '密码' })}
          rules={[{ required: true, message: required }, ...passwordRules]}
        >
          <Input.Password
            autoComplete="new-password"
            placeholder={intl.formatMessage(
              { id: 'pages.users.field.password.placeholder', defaultMessage: '请输入密码，{min} 到 {max} 位' },
              { min: PASSWORD_MIN, max: PASSWORD_MAX },
            )}
          />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
