import { useMemo } from 'react';
import { Space, Tag, Typography, type TableColumnsType } from 'antd';
import { useIntl } from 'react-intl';
import type { UserRow } from '@aigw/contracts';
import { LabelTag } from '../../components/LabelTag';
import { deletedLabel, roleLabel, statusLabel } from './labels';
import { UserActions } from './UserActions';
import { useBalanceFormat } from './use-balance-format';

/** The user table's columns (docs/product.md section 3); figures billing did not answer for show as unavailable. */
export function useUserColumns(onEdit: (id: number) => void): TableColumnsType<UserRow> {
  const intl = useIntl();
  const format = useBalanceFormat();

  return useMemo<TableColumnsType<UserRow>>(
    () => [
      { title: intl.formatMessage({ id: 'pages.users.column.id', defaultMessage: 'ID' }), dataIndex: 'id', key: 'id', width: 80 },
      {
        title: intl.formatMessage({ id: 'pages.users.column.username', defaultMessage: '用户名' }),
        key: 'username',
        render: (_, user) => (
          <Space orientation="vertical" size={0}>
            <Typography.Text>{user.username}</Typography.Text>
            {user.display_name && user.display_name !== user.username && <Typography.Text type="secondary">{user.display_name}</Typography.Text>}
          </Space>
        ),
      },
      {
        title: intl.formatMessage({ id: 'pages.users.column.group', defaultMessage: '分组' }),
        key: 'group',
        render: (_, user) => <Tag color="blue">{user.group}</Tag>,
      },
      {
        title: intl.formatMessage({ id: 'pages.users.column.stats', defaultMessage: '统计信息' }),
        key: 'stats',
        render: (_, user) => (
          <Space orientation="vertical" size={2}>
            <Tag color="green">
              {intl.formatMessage({ id: 'pages.users.stats.quota', defaultMessage: '剩余额度：{quota}' }, { quota: format.quota(user.quota) })}
            </Tag>
            <Tag color="orange">
              {intl.formatMessage({ id: 'pages.users.stats.usedQuota', defaultMessage: '已用额度：{quota}' }, { quota: format.quota(user.used_quota) })}
            </Tag>
            <Tag color="cyan">
              {intl.formatMessage({ id: 'pages.users.stats.requestCount', defaultMessage: '调用次数：{count}' }, { count: format.count(user.request_count) })}
            </Tag>
          </Space>
        ),
      },
      {
        title: intl.formatMessage({ id: 'pages.users.column.invite', defaultMessage: '邀请信息' }),
        key: 'invite',
        render: (_, user) => (
          <Space orientation="vertical" size={2}>
            <Tag>{intl.formatMessage({ id: 'pages.users.invite.count', defaultMessage: '邀请人数：{count}' }, { count: format.count(user.aff_count) })}</Tag>
            <Tag>
              {intl.formatMessage(
                { id: 'pages.users.invite.earnings', defaultMessage: '邀请总收益：{quota}' },
                { quota: format.quota(user.aff_history_quota) },
              )}
            </Tag>
            <Tag>
              {user.inviter_id
                ? intl.formatMessage({ id: 'pages.users.invite.inviter', defaultMessage: '邀请人ID：{id}' }, { id: user.inviter_id })
                : intl.formatMessage({ id: 'pages.users.invite.noInviter', defaultMessage: '无邀请人' })}
            </Tag>
          </Space>
        ),
      },
      {
        title: intl.formatMessage({ id: 'pages.users.column.role', defaultMessage: '角色' }),
        key: 'role',
        render: (_, user) => <LabelTag label={roleLabel(user.role)} />,
      },
      {
        title: intl.formatMessage({ id: 'pages.users.column.status', defaultMessage: '状态' }),
        key: 'status',
        render: (_, user) => (
          <Space size={[0, 4]} wrap>
            <LabelTag label={statusLabel(user.status)} />
            {user.DeletedAt && <LabelTag label={deletedLabel} />}
          </Space>
        ),
      },
      {
        title: intl.formatMessage({ id: 'common.operation', defaultMessage: '操作' }),
        key: 'actions',
        // Pinned: on a narrow screen the buttons stay in view while the figures scroll.
        fixed: 'right',
        render: (_, user) => <UserActions user={user} onEdit={onEdit} />,
      },
    ],
    [intl, format, onEdit],
  );
}
