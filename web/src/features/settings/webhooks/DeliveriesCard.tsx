import { useState } from 'react';
import { Button, Card, Select, Space, Table, Tag, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import type { DeliveryView } from '@aigw/contracts';
import { useText } from '../../../app/use-text';
import { useTablePaging } from '../../../components/use-table-paging';
import { formatTimestamp } from '../../logs/time';
import { useDeliveriesQuery, type DeliveryListArgs } from './api';

const statusColors: Record<DeliveryView['status'], string> = { pending: 'processing', sent: 'success', failed: 'error' };

/** Outgoing mails and webhook calls, newest first, filtered by kind and status; a failure shows its last error. */
export function DeliveriesCard() {
  const t = useText();
  const { page, setPage, pageSize, pagination } = useTablePaging();
  const [kind, setKind] = useState<DeliveryListArgs['kind']>('');
  const [status, setStatus] = useState<DeliveryListArgs['status']>('');
  const { data, isFetching, refetch } = useDeliveriesQuery({ kind, status, page, pageSize });

  const kindLabels: Record<DeliveryView['kind'], string> = {
    mail: t('pages.settings.webhooks.deliveries.kind.mail', '邮件'),
    webhook: t('pages.settings.webhooks.deliveries.kind.webhook', 'Webhook'),
    notice: t('pages.settings.webhooks.deliveries.kind.notice', '用户通知'),
  };
  const statusLabels: Record<DeliveryView['status'], string> = {
    pending: t('pages.settings.webhooks.deliveries.status.pending', '等待/重试中'),
    sent: t('pages.settings.webhooks.deliveries.status.sent', '已送达'),
    failed: t('pages.settings.webhooks.deliveries.status.failed', '失败'),
  };
  const any = t('pages.settings.webhooks.deliveries.any', '全部');

  const columns = [
    { title: 'ID', dataIndex: 'id', width: 72 },
    { title: t('pages.settings.webhooks.deliveries.column.time', '时间'), dataIndex: 'created_at', render: (value: number) => formatTimestamp(value) },
    {
      title: t('pages.settings.webhooks.deliveries.column.kind', '类型'),
      dataIndex: 'kind',
      render: (value: DeliveryView['kind']) => <Tag>{kindLabels[value]}</Tag>,
    },
    {
      title: t('pages.settings.webhooks.deliveries.column.target', '目标'),
      dataIndex: 'target',
      render: (value: string, row: DeliveryView) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text style={{ wordBreak: 'break-all' }}>{value}</Typography.Text>
          <Typography.Text type="secondary">{row.topic}</Typography.Text>
        </Space>
      ),
    },
    {
      title: t('pages.settings.webhooks.deliveries.column.status', '状态'),
      dataIndex: 'status',
      render: (value: DeliveryView['status']) => <Tag color={statusColors[value]}>{statusLabels[value]}</Tag>,
    },
    { title: t('pages.settings.webhooks.deliveries.column.attempts', '尝试次数'), dataIndex: 'attempts' },
    {
      title: t('pages.settings.webhooks.deliveries.column.response', 'HTTP 状态'),
      dataIndex: 'response_status',
      render: (value: number, row: DeliveryView) => (row.kind === 'webhook' && value > 0 ? value : '-'),
    },
    {
      title: t('pages.settings.webhooks.deliveries.column.error', '错误'),
      dataIndex: 'last_error',
      render: (value: string, row: DeliveryView) =>
        value ? (
          <Typography.Text type={row.status === 'failed' ? 'danger' : 'warning'} style={{ wordBreak: 'break-word' }}>
            {value}
          </Typography.Text>
        ) : (
          '-'
        ),
    },
  ];

  return (
    <Card
      title={t('pages.settings.webhooks.deliveries.title', '投递记录')}
      extra={
        <Space wrap>
          <Select
            aria-label={t('pages.settings.webhooks.deliveries.column.kind', '类型')}
            style={{ width: 120 }}
            value={kind}
            onChange={(value) => {
              setKind(value);
              setPage(1);
            }}
            options={[
              { value: '', label: any },
              { value: 'mail', label: kindLabels.mail },
              { value: 'webhook', label: kindLabels.webhook },
              { value: 'notice', label: kindLabels.notice },
            ]}
          />
          <Select
            aria-label={t('pages.settings.webhooks.deliveries.column.status', '状态')}
            style={{ width: 140 }}
            value={status}
            onChange={(value) => {
              setStatus(value);
              setPage(1);
            }}
            options={[
              { value: '', label: any },
              { value: 'pending', label: statusLabels.pending },
              { value: 'sent', label: statusLabels.sent },
              { value: 'failed', label: statusLabels.failed },
            ]}
          />
          <Button icon={<ReloadOutlined />} onClick={() => void refetch()}>
            {t('pages.settings.webhooks.deliveries.refresh', '刷新')}
          </Button>
        </Space>
      }
    >
      <Table<DeliveryView>
        rowKey="id"
        size="middle"
        loading={isFetching}
        dataSource={data?.items ?? []}
        columns={columns}
        scroll={{ x: 'max-content' }}
        pagination={pagination(data?.total ?? 0)}
      />
    </Card>
  );
}
