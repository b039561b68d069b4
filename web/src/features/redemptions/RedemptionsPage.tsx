import { useEffect, useState } from 'react';
import { App, Button, Card, Flex, Input, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { CopyOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { RedemptionStatus, type RedemptionView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { pageSizeChosen, pageSizeOptions } from '../../app/preferences';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { copyText } from '../../lib/clipboard';
import { formatTime } from '../tokens/token-rules';
import { useRedemptionsQuery } from './api';
import { RedemptionActions } from './RedemptionActions';
import { RedemptionDrawer } from './RedemptionDrawer';

type Editing = null | { id?: number };

/** /redemption (admin): redemption codes. */
export function RedemptionsPage() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const { message } = App.useApp();
  const formatQuota = useFormatQuota();
  const pageSize = useAppSelector((state) => state.preferences.pageSize);
  const [keywordInput, setKeywordInput] = useState('');
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<RedemptionView[]>([]);
  const [editing, setEditing] = useState<Editing>(null);
  const { data, isFetching } = useRedemptionsQuery({ page, pageSize, keyword });
  // Deleting the last row of the last page leaves an empty page: step back to the one before.
  useEffect(() => {
    if (data && data.items.length === 0 && data.total > 0 && page > 1) setPage(Math.ceil(data.total / pageSize));
  }, [data, page, pageSize]);
  const t = (id: string, defaultMessage: string, values?: Record<string, string | number>) => intl.formatMessage({ id, defaultMessage }, values);

  const runSearch = () => {
    setKeyword(keywordInput.trim());
    setPage(1);
  };

  const copySelected = async () => {
    if (selected.length === 0) {
      void message.warning(t('pages.redemptions.copySelected.none', '请至少选择一个兑换码！'));
      return;
    }
    if (await copyText(selected.map((row) => row.key).join('\n'))) {
      void message.success(t('pages.redemptions.copySelected.done', '已复制 {count} 个兑换码', { count: selected.length }));
    }
  };

  const statusTag = (status: number) => {
    switch (status) {
      case RedemptionStatus.Unused:
        return <Tag color="green">{t('pages.redemptions.status.unused', '未使用')}</Tag>;
      case RedemptionStatus.Disabled:
        return <Tag color="red">{t('pages.redemptions.status.disabled', '已禁用')}</Tag>;
      case RedemptionStatus.Used:
        return <Tag>{t('pages.redemptions.status.used', '已使用')}</Tag>;
      default:
        return <Tag>{t('pages.redemptions.status.unknown', '未知状态')}</Tag>;
    }
  };

  const columns: ColumnsType<RedemptionView> = [
    { title: t('pages.redemptions.column.id', 'ID'), dataIndex: 'id' },
    { title: t('pages.redemptions.column.name', '名称'), dataIndex: 'name' },
    { title: t('pages.redemptions.column.status', '状态'), dataIndex: 'status', render: (status: number) => statusTag(status) },
    { title: t('pages.redemptions.column.quota', '额度'), dataIndex: 'quota', render: (quota: number) => formatQuota(quota) },
    { title: t('pages.redemptions.column.createdTime', '创建时间'), dataIndex: 'created_time', render: (time: number) => formatTime(time) },
    {
      title: t('pages.redemptions.column.usedUserId', '兑换人ID'),
      dataIndex: 'used_user_id',
      render: (id: number) => (id === 0 ? t('pages.redemptions.usedUserId.none', '无') : id),
    },
    {
      title: t('pages.redemptions.column.actions', '操作'),
      key: 'actions',
      render: (_, redemption) => <RedemptionActions redemption={redemption} onEdit={(id) => setEditing({ id })} />,
    },
  ];

  return (
    <Card>
      <Flex vertical gap={16}>
        <Flex gap={8} wrap>
          <Input
            allowClear
            style={{ maxWidth: 320 }}
            prefix={<SearchOutlined />}
            placeholder={t('pages.redemptions.search', '搜索兑换码的 ID 和名称 ...')}
            value={keywordInput}
            onChange={(event) => setKeywordInput(event.target.value)}
            onPressEnter={runSearch}
          />
          <Button type="primary" onClick={runSearch}>{t('pages.redemptions.search.submit', '查询')}</Button>
          <Button icon={<PlusOutlined />} onClick={() => setEditing({})}>{t('pages.redemptions.add', '添加兑换码')}</Button>
          <Button icon={<CopyOutlined />} onClick={() => void copySelected()}>{t('pages.redemptions.copySelected', '复制所选兑换码')}</Button>
        </Flex>
        <Table<RedemptionView>
          rowKey="id"
          loading={isFetching}
          columns={columns}
          dataSource={data?.items ?? []}
          scroll={{ x: 'max-content' }}
          rowSelection={{
            selectedRowKeys: selected.map((row) => row.id),
            preserveSelectedRowKeys: true,
            onChange: (_ids, rows) => setSelected(rows.filter(Boolean)),
          }}
          pagination={{
            current: page,
            pageSize,
            total: data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: pageSizeOptions.map(String),
            showTotal: (total) => t('common.total', '共 {total} 条', { total }),
            onChange: (next, size) => {
              if (size !== pageSize) {
                dispatch(pageSizeChosen(size));
                setPage(1);
              } else setPage(next);
            },
          }}
        />
      </Flex>
      <RedemptionDrawer open={editing !== null} redemptionId={editing?.id} onClose={() => setEditing(null)} />
    </Card>
  );
}

export default RedemptionsPage;
