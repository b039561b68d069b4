import { useState } from 'react';
import { Button, Card, Flex, Input, Table } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { defineMessages } from 'react-intl';
import type { RedemptionView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { CopySelectedButton } from '../../components/CopySelectedButton';
import { LabelTag } from '../../components/LabelTag';
import { useLeaveEmptyPage, useTablePaging } from '../../components/use-table-paging';
import { formatTime } from '../tokens/token-rules';
import { useRedemptionsQuery } from './api';
import { redemptionStatusLabel } from './labels';
import { RedemptionActions } from './RedemptionActions';
import { RedemptionDrawer } from './RedemptionDrawer';

/** Which drawer is open: none, new codes, or the code with this id. */
type Editing = null | { id?: number };

const copyMessages = defineMessages({
  label: { id: 'pages.redemptions.copySelected', defaultMessage: '复制所选兑换码' },
  none: { id: 'pages.redemptions.copySelected.none', defaultMessage: '请至少选择一个兑换码！' },
  done: { id: 'pages.redemptions.copySelected.done', defaultMessage: '已复制 {count} 个兑换码' },
});

/** /redemption (admin): redemption codes. */
export function RedemptionsPage() {
  const formatQuota = useFormatQuota();
  const paging = useTablePaging();
  const { setPage } = paging;
  const [keywordInput, setKeywordInput] = useState('');
  const [keyword, setKeyword] = useState('');
  const [selected, setSelected] = useState<RedemptionView[]>([]);
  const [editing, setEditing] = useState<Editing>(null);
  const { data, isFetching } = useRedemptionsQuery({ page: paging.page, pageSize: paging.pageSize, keyword });
  useLeaveEmptyPage(paging, data);
  const t = useText();

  const runSearch = () => {
    setKeyword(keywordInput.trim());
    setPage(1);
  };

  const columns: ColumnsType<RedemptionView> = [
    { title: t('pages.redemptions.column.id', 'ID'), dataIndex: 'id' },
    { title: t('pages.redemptions.column.name', '名称'), dataIndex: 'name' },
    {
      title: t('pages.redemptions.column.status', '状态'),
      dataIndex: 'status',
      render: (status: number) => <LabelTag label={redemptionStatusLabel(status)} />,
    },
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
          <Button type="primary" onClick={runSearch}>
            {t('common.search', '查询')}
          </Button>
          <Button icon={<PlusOutlined />} onClick={() => setEditing({})}>
            {t('pages.redemptions.add', '添加兑换码')}
          </Button>
          <CopySelectedButton count={selected.length} keys={async () => selected.map((row) => row.key)} messages={copyMessages} />
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
          pagination={paging.pagination(data?.total ?? 0)}
        />
      </Flex>
      <RedemptionDrawer open={editing !== null} redemptionId={editing?.id} onClose={() => setEditing(null)} />
    </Card>
  );
}

export default RedemptionsPage;
