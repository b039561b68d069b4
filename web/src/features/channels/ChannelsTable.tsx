import { App, Space, Table, Tag, Tooltip, type TablePaginationConfig, type TableProps } from 'antd';
import { useIntl } from 'react-intl';
import { ChannelStatus, type ChannelRow, type ChannelView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { isTagRow, useEditTagMutation, useUpdateChannelFieldMutation } from './api';
import { InlineNumber, ResponseTimeTag, StatusTag } from './cells';
import { channelTypeName } from './channel-types';
import { splitModels } from './form-values';
import { ChannelActions, TagActions } from './RowActions';
import { useShowFailure } from './use-failure';
import { useTestChannel, useUpdateBalance } from './use-test-channel';

const PRIORITY_MIN = -999;
const NUMBER_MAX = 1_000_000;

export const rowKey = (row: ChannelRow): string | number => (isTagRow(row) ? `tag:${row.tag}` : row.id);

interface ChannelsTableProps {
  rows: ChannelRow[];
  loading: boolean;
  pagination: TablePaginationConfig;
  /** Row selection, in batch mode only. */
  selection: number[] | null;
  onSelectionChange(ids: number[]): void;
  onEdit(id: number): void;
  onEditTag(tag: string): void;
}

/** The channel table: plain rows, or tag rows with their channels as children (tag aggregate mode). */
export function ChannelsTable(props: ChannelsTableProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message } = App.useApp();
  const formatQuota = useFormatQuota();
  const showFailure = useShowFailure();
  const test = useTestChannel();
  const updateBalance = useUpdateBalance();
  const [updateField] = useUpdateChannelFieldMutation();
  const [editTag] = useEditTagMutation();

  const saved = () => void message.success(t({ id: 'pages.channels.updated', defaultMessage: '更新成功！' }));
  const saveChannel = async (body: { id: number; priority: number } | { id: number; weight: number }) =>
    updateField(body)
      .unwrap()
      .then(
        () => (saved(), true),
        (error: unknown) => (showFailure(error), false),
      );
  const saveTag = async (body: { tag: string; priority: number } | { tag: string; weight: number }) =>
    editTag(body)
      .unwrap()
      .then(
        () => (saved(), true),
        () => false,
      );

  const columns: TableProps<ChannelRow>['columns'] = [
    { title: t({ id: 'pages.channels.column.id', defaultMessage: 'ID' }), key: 'id', width: 70, render: (_, row) => (isTagRow(row) ? null : row.id) },
    {
      title: t({ id: 'pages.channels.column.name', defaultMessage: '名称' }),
      key: 'name',
      render: (_, row) =>
        isTagRow(row) ? (
          <Space size={4} wrap>
            <Tag color="blue">{t({ id: 'pages.channels.tagRow.label', defaultMessage: '标签' })}</Tag>
            <span>{row.tag}</span>
            <span>{t({ id: 'pages.channels.tagRow.count', defaultMessage: '（{count} 个渠道）' }, { count: row.channel_count })}</span>
          </Space>
        ) : (
          <Space size={4} wrap>
            <Tooltip title={splitModels(row.models).join(', ')}>
              <span>{row.name}</span>
            </Tooltip>
            {row.tag && <Tag color="blue">{row.tag}</Tag>}
          </Space>
        ),
    },
    {
      title: t({ id: 'pages.channels.column.group', defaultMessage: '分组' }),
      key: 'group',
      render: (_, row) => (
        <Space size={2} wrap>
          {splitModels(row.group).map((group) => (
            <Tag key={group}>{group}</Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t({ id: 'pages.channels.column.type', defaultMessage: '类型' }),
      key: 'type',
      render: (_, row) => (isTagRow(row) && row.type === 0 ? null : <Tag>{t(channelTypeName(row.type))}</Tag>),
    },
    {
      title: t({ id: 'pages.channels.column.status', defaultMessage: '状态' }),
      key: 'status',
      render: (_, row) =>
        isTagRow(row) ? (
          <Space size={4}>
            <StatusTag status={row.status} />
            <span>
              {t({ id: 'pages.channels.tagRow.enabled', defaultMessage: '{enabled}/{count} 已启用' }, { enabled: row.enabled_count, count: row.channel_count })}
            </span>
          </Space>
        ) : (
          <StatusTag status={row.status} otherInfo={row.other_info} />
        ),
    },
    {
      title: t({ id: 'pages.channels.column.responseTime', defaultMessage: '响应时间' }),
      key: 'response_time',
      render: (_, row) => <ResponseTimeTag milliseconds={row.response_time} onClick={isTagRow(row) ? undefined : () => void test(row)} />,
    },
    {
      title: t({ id: 'pages.channels.column.quota', defaultMessage: '已用/剩余' }),
      key: 'quota',
      render: (_, row) => (
        <Space size={2}>
          <Tooltip title={t({ id: 'pages.channels.quota.used', defaultMessage: '已用额度' })}>
            <Tag>{formatQuota(row.used_quota)}</Tag>
          </Tooltip>
          {isTagRow(row) ? (
            <Tooltip title={t({ id: 'pages.channels.quota.remaining', defaultMessage: '剩余额度' })}>
              <Tag>${row.balance.toFixed(2)}</Tag>
            </Tooltip>
          ) : (
            <BalanceTag channel={row} onUpdate={() => void updateBalance(row)} />
          )}
        </Space>
      ),
    },
    {
      title: t({ id: 'pages.channels.column.priority', defaultMessage: '优先级' }),
      key: 'priority',
      render: (_, row) => (
        <InlineNumber
          key={rowKey(row)}
          label={t({ id: 'pages.channels.column.priority', defaultMessage: '优先级' })}
          value={row.priority}
          min={PRIORITY_MIN}
          max={NUMBER_MAX}
          onSave={(priority) => (isTagRow(row) ? saveTag({ tag: row.tag, priority }) : saveChannel({ id: row.id, priority }))}
        />
      ),
    },
    {
      title: t({ id: 'pages.channels.column.weight', defaultMessage: '权重' }),
      key: 'weight',
      render: (_, row) => (
        <InlineNumber
          key={rowKey(row)}
          label={t({ id: 'pages.channels.column.weight', defaultMessage: '权重' })}
          value={row.weight}
          min={0}
          max={NUMBER_MAX}
          onSave={(weight) => (isTagRow(row) ? saveTag({ tag: row.tag, weight }) : saveChannel({ id: row.id, weight }))}
        />
      ),
    },
    {
      title: t({ id: 'pages.channels.column.actions', defaultMessage: '操作' }),
      key: 'actions',
      render: (_, row) => (isTagRow(row) ? <TagActions row={row} onEdit={props.onEditTag} /> : <ChannelActions channel={row} onEdit={props.onEdit} />),
    },
  ];

  return (
    <Table<ChannelRow>
      rowKey={rowKey}
      columns={columns}
      dataSource={props.rows}
      loading={props.loading}
      scroll={{ x: 'max-content' }}
      size="middle"
      expandable={{ childrenColumnName: 'children' }}
      // Disabled channels are greyed (docs/product.md section 6).
      onRow={(row) => (!isTagRow(row) && row.status !== ChannelStatus.Enabled ? { className: 'channel-row-disabled', style: { opacity: 0.6 } } : {})}
      rowSelection={
        props.selection
          ? {
              selectedRowKeys: props.selection,
              onChange: (keys) => props.onSelectionChange(keys.filter((key): key is number => typeof key === 'number')),
              getCheckboxProps: (row) => ({ disabled: isTagRow(row) }),
            }
          : undefined
      }
      pagination={props.pagination}
    />
  );
}

function BalanceTag({ channel, onUpdate }: { channel: ChannelView; onUpdate(): void }) {
  const intl = useIntl();
  return (
    <Tooltip title={intl.formatMessage({ id: 'pages.channels.quota.update', defaultMessage: '剩余额度，点击更新' })}>
      <Tag style={{ cursor: 'pointer' }} onClick={onUpdate}>
        ${channel.balance.toFixed(2)}
      </Tag>
    </Tooltip>
  );
}
