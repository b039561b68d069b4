import { Alert, App, Form, Input, Modal } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { signedOut } from '../../../app/session';
import { useAppDispatch } from '../../../app/store';
import { useDeleteOwnAccountMutation } from './api';

/** Deletes the own account once the user typed their username; then the session ends (docs/product.md section 4). */
export function DeleteAccountDialog({ open, username, onClose }: { open: boolean; username: string; onClose(): void }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const [form] = Form.useForm<{ confirmation: string }>();
  const [deleteAccount, { isLoading }] = useDeleteOwnAccountMutation();

  const confirmRule = intl.formatMessage({ id: 'pages.settings.personal.delete.mismatch', defaultMessage: '请输入你的账户名以确认删除！' });

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const deleted = await deleteAccount()
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!deleted) return;
    dispatch(signedOut());
    void navigate('/login');
    void message.success(intl.formatMessage({ id: 'pages.settings.personal.delete.done', defaultMessage: '账户已删除！' }));
  };

  return (
    <Modal
      open={open}
      title={intl.formatMessage({ id: 'pages.settings.personal.delete.title', defaultMessage: '危险操作' })}
      okText={intl.formatMessage({ id: 'pages.settings.personal.delete.submit', defaultMessage: '确认删除' })}
      okButtonProps={{ danger: true, loading: isLoading }}
      onOk={() => void submit()}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
    >
      <Alert
        type="error"
        showIcon
        style={{ marginBottom: 16 }}
        title={intl.formatMessage({ id: 'pages.settings.personal.delete.warning', defaultMessage: '您正在删除自己的帐户，将清空所有数据且不可恢复' })}
      />
      <Form form={form} layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Form.Item
          name="confirmation"
          rules={[{ validator: (_, value: string | undefined) => (value === username ? Promise.resolve() : Promise.reject(new Error(confirmRule))) }]}
        >
          <Input
            autoComplete="off"
            placeholder={intl.formatMessage(
              { id: 'pages.settings.personal.delete.placeholder', defaultMessage: '输入你的账户名 {username} 以确认删除' },
              { username },
            )}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
