import { App, Button, Popconfirm, Space } from 'antd';
import { useIntl } from 'react-intl';
import { UserStatus, type ManageAction, type UserRow } from '@aigw/contracts';
import { useManageUserMutation } from './api';
import { confirmAction } from '../../components/confirm-action';

/** Status 3 cannot be enabled from here (docs/product.md section 3). */
const NOT_ENABLABLE = 3;

interface Props {
  user: UserRow;
  onEdit: (id: number) => void;
}

/**
 * Promote, demote, disable or enable, edit and deregister for one row. A deregistered row has
 * no actions. Each row has its own mutation, so only the clicked row shows a spinner.
 */
export function UserActions({ user, onEdit }: Props) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [manage, { isLoading, originalArgs }] = useManageUserMutation();

  if (user.DeletedAt) return null;

  const run = async (action: ManageAction) => {
    // Failures are toasted by the base query with the server's message.
    const done = await manage({ id: user.id, action })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (done) void message.success(intl.formatMessage({ id: 'common.success', defaultMessage: '操作成功完成！' }));
  };
  const busy = (action: ManageAction) => isLoading && originalArgs?.action === action;
  const enabled = user.status === UserStatus.Enabled;

  return (
    <Space size={4} wrap>
      <Button size="small" loading={busy('promote')} onClick={() => void run('promote')}>
        {intl.formatMessage({ id: 'pages.users.action.promote', defaultMessage: '提升' })}
      </Button>
      <Button size="small" loading={busy('demote')} onClick={() => void run('demote')}>
        {intl.formatMessage({ id: 'pages.users.action.demote', defaultMessage: '降级' })}
      </Button>
      {enabled ? (
        <Button size="small" loading={busy('disable')} onClick={() => void run('disable')}>
          {intl.formatMessage({ id: 'pages.users.action.disable', defaultMessage: '禁用' })}
        </Button>
      ) : (
        <Button size="small" loading={busy('enable')} disabled={user.status === NOT_ENABLABLE} onClick={() => void run('enable')}>
          {intl.formatMessage({ id: 'pages.users.action.enable', defaultMessage: '启用' })}
        </Button>
      )}
      <Button size="small" onClick={() => onEdit(user.id)}>
        {intl.formatMessage({ id: 'pages.users.action.edit', defaultMessage: '编辑' })}
      </Button>
      <Popconfirm
        title={intl.formatMessage({ id: 'pages.users.action.delete.confirm', defaultMessage: '确定要注销此用户？' })}
        description={intl.formatMessage({ id: 'pages.users.action.delete.hint', defaultMessage: '相当于删除用户，此修改将不可逆' })}
        okText={intl.formatMessage({ id: 'common.confirm', defaultMessage: '确定' })}
        cancelText={intl.formatMessage({ id: 'common.cancel', defaultMessage: '取消' })}
        okButtonProps={{ danger: true }}
        onConfirm={confirmAction(() => run('delete'))}
      >
        <Button size="small" danger loading={busy('delete')}>
          {intl.formatMessage({ id: 'pages.users.action.delete', defaultMessage: '注销' })}
        </Button>
      </Popconfirm>
    </Space>
  );
}
