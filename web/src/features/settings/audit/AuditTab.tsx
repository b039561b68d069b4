import { useState } from 'react';
import { Button, Card, Form, Input, Select, Space, Table, Tag, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { AUDIT_MASK, auditActions, auditTargetTypes, type AuditAction, type AuditRecord, type AuditTargetType } from '@aigw/contracts';
import { useText } from '../../../app/use-text';
import { SearchButtonItem, TimeRangeItem } from '../../../components/FilterItems';
import { LabelTag } from '../../../components/LabelTag';
import { useTablePaging } from '../../../components/use-table-paging';
import { formatTimestamp, timestampsOf, type TimeRange } from '../../logs/time';
import { roleLabel } from '../../users/labels';
import { actionLabels, targetTypeLabels } from './audit-labels';
import { useAuditRecordsQuery, type AuditListArgs } from './api';

/** What the filter form holds ('' = any). */
interface AuditFilterValues {
  range: TimeRange;
  actor: string;
  action: AuditAction | '';
  target_type: AuditTargetType | '';
  target_id: string;
}

const initialFilters: AuditFilterValues = { range: null, actor: '', action: '', target_type: '', target_id: '' };

type Filters = Omit<AuditListArgs, 'page' | 'pageSize'>;

function toFilters(values: AuditFilterValues): Filters {
  return {
    actor: values.actor.trim(),
    action: values.action,
    target_type: values.target_type,
    target_id: values.target_id.trim(),
    ...timestampsOf(values.range),
  };
}

/** One field of a record's before/after. */
interface DiffRow {
  field: string;
  before: unknown;
  after: unknown;
}

/** The fields a record names, in the order of its after (or before) side. */
function diffRows(record: AuditRecord): DiffRow[] {
  const fields = [...new Set([...Object.keys(record.after ?? {}), ...Object.keys(record.before ?? {})])];
  return fields.map((field) => ({ field, before: record.before?.[field], after: record.after?.[field] }));
}

/** A value of the diff: a masked secret as a tag (never its value), text as it is, anything else as JSON. */
function DiffValue({ value, masked }: { value: unknown; masked: string }) {
  if (value === undefined) return <Typography.Text type="secondary">-</Typography.Text>;
  if (value === AUDIT_MASK) return <Tag color="purple">{masked}</Tag>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (
    <Typography.Text code={typeof value !== 'string'} style={{ wordBreak: 'break-all' }}>
      {text === '' ? '""' : text}
    </Typography.Text>
  );
}

/** Before and after of one record, field by field. */
function RecordDiff({ record }: { record: AuditRecord }) {
  const t = useText();
  const masked = t('pages.settings.audit.masked', '已隐藏');
  const rows = diffRows(record);
  if (rows.length === 0) return <Typography.Text type="secondary">{t('pages.settings.audit.noChanges', '没有字段变更（例如查看了密钥）')}</Typography.Text>;
  return (
    <Table<DiffRow>
      rowKey="field"
      size="small"
      pagination={false}
      dataSource={rows}
      columns={[
        { title: t('pages.settings.audit.diff.field', '字段'), dataIndex: 'field', width: 200 },
        {
          title: t('pages.settings.audit.diff.before', '变更前'),
          dataIndex: 'before',
          render: (value: unknown) => <DiffValue value={value} masked={masked} />,
        },
        { title: t('pages.settings.audit.diff.after', '变更后'), dataIndex: 'after', render: (value: unknown) => <DiffValue value={value} masked={masked} /> },
      ]}
    />
  );
}

/**
 * Settings → Audit log (root): every admin action of every service, newest first, filtered by
 * time, actor, action and target; a row opens the changed fields, secrets shown as hidden.
 */
export function AuditTab() {
  const t = useText();
  const intl = useIntl();
  const [form] = Form.useForm<AuditFilterValues>();
  const { page, setPage, pageSize, pagination } = useTablePaging();
  const [filters, setFilters] = useState<Filters>(() => toFilters(initialFilters));
  const { data, isFetching, refetch } = useAuditRecordsQuery({ ...filters, page, pageSize });

  const any = t('pages.settings.audit.filter.any', '全部');
  const columns = [
    { title: t('pages.settings.audit.column.time', '时间'), dataIndex: 'time', render: (value: number) => formatTimestamp(value) },
    {
      title: t('pages.settings.audit.column.actor', '操作人'),
      dataIndex: 'actor',
      render: (actor: AuditRecord['actor']) => (
        <Space size={4}>
          <Typography.Text>{actor.username}</Typography.Text>
          <Typography.Text type="secondary">#{actor.user_id}</Typography.Text>
          <LabelTag label={roleLabel(actor.role)} />
        </Space>
      ),
    },
    {
      title: t('pages.settings.audit.column.action', '操作'),
      dataIndex: 'action',
      render: (action: AuditAction) => <Tag color="blue">{intl.formatMessage(actionLabels[action])}</Tag>,
    },
    {
      title: t('pages.settings.audit.column.target', '对象'),
      dataIndex: 'target',
      render: (target: AuditRecord['target']) => (
        <Space size={4} wrap>
          <Tag>{intl.formatMessage(targetTypeLabels[target.type])}</Tag>
          <Typography.Text style={{ wordBreak: 'break-all' }}>{target.label}</Typography.Text>
          {target.label !== target.id && <Typography.Text type="secondary">#{target.id}</Typography.Text>}
        </Space>
      ),
    },
    { title: t('pages.settings.audit.column.ip', 'IP'), dataIndex: 'ip', render: (ip: string) => ip || '-' },
  ];

  return (
    <Card
      title={t('pages.settings.audit.title', '审计日志')}
      extra={
        <Button icon={<ReloadOutlined />} onClick={() => void refetch()}>
          {t('pages.settings.audit.refresh', '刷新')}
        </Button>
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Text type="secondary">
          {t(
            'pages.settings.audit.help',
            '管理员和超级管理员对用户、额度、渠道、设置和 Webhook 的每次改动，以及每次查看密钥，都记录在这里；密钥只显示为“已隐藏”。',
          )}
        </Typography.Text>
        <Form
          form={form}
          layout="inline"
          initialValues={initialFilters}
          onFinish={(values) => {
            setFilters(toFilters({ ...initialFilters, ...values }));
            setPage(1);
          }}
          style={{ rowGap: 12 }}
        >
          <TimeRangeItem />
          <Form.Item name="actor">
            <Input
              allowClear
              placeholder={t('pages.settings.audit.filter.actor', '操作人（用户名或 ID）')}
              aria-label={t('pages.settings.audit.filter.actor', '操作人（用户名或 ID）')}
            />
          </Form.Item>
          <Form.Item name="action" label={t('pages.settings.audit.column.action', '操作')}>
            <Select
              style={{ width: 180 }}
              aria-label={t('pages.settings.audit.column.action', '操作')}
              options={[{ value: '', label: any }, ...auditActions.map((action) => ({ value: action, label: intl.formatMessage(actionLabels[action]) }))]}
            />
          </Form.Item>
          <Form.Item name="target_type" label={t('pages.settings.audit.filter.targetType', '对象类型')}>
            <Select
              style={{ width: 140 }}
              aria-label={t('pages.settings.audit.filter.targetType', '对象类型')}
              options={[{ value: '', label: any }, ...auditTargetTypes.map((type) => ({ value: type, label: intl.formatMessage(targetTypeLabels[type]) }))]}
            />
          </Form.Item>
          <Form.Item name="target_id">
            <Input
              allowClear
              placeholder={t('pages.settings.audit.filter.targetId', '对象 ID')}
              aria-label={t('pages.settings.audit.filter.targetId', '对象 ID')}
            />
          </Form.Item>
          <SearchButtonItem searching={isFetching} />
        </Form>
        <Table<AuditRecord>
          rowKey="id"
          size="middle"
          loading={isFetching}
          dataSource={data?.items ?? []}
          columns={columns}
          scroll={{ x: 'max-content' }}
          expandable={{ expandedRowRender: (record) => <RecordDiff record={record} /> }}
          pagination={pagination(data?.total ?? 0)}
        />
      </Space>
    </Card>
  );
}
