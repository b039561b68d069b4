import { useState } from 'react';
import { Alert, Button, Card, Flex, Input, Space, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { defineMessages } from 'react-intl';
import type { TokenView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { CopySelectedButton } from '../../components/CopySelectedButton';
import { LabelTag } from '../../components/LabelTag';
import { useLeaveEmptyPage, useTablePaging } from '../../components/use-table-paging';
import { useTokensQuery } from './api';
import { tokenStatusLabel } from './labels';
import { TokenActions } from './TokenActions';
import { TokenDrawer } from './TokenDrawer';
import { formatTime, NEVER } from './token-rules';
import { useTokenKeys } from './use-token-keys';

/** Which drawer is open: none, a new token, or the token with this id. */
type Editing = null | { id?: number };

const copyMessages = defineMessages({
  label: { id: 'pages.tokens.copySelected', defaultMessage: '复制所选令牌' },
  none: { id: 'pages.tokens.copySelected.none', defaultMessage: '请至少选择一个令牌！' },
  done: { id: 'pages.tokens.copySelected.done', defaultMessage: '已复制 {count} 个令牌' },
});

/** /token: the user's own sk- tokens. */
export function TokensPage() {
  const formatQuota = useFormatQuota();
  const paging = useTablePaging();
  const { setPage } = paging;
  const [nameInput, setNameInput] = useState('');
  const [keyInput, setKeyInput] = useState('');
  const [search, setSearch] = useState({ keyword: '', token: '' });
  const [selected, setSelected] = useState<number[]>([]);
  const [editing, setEditing] = useState<Editing>(null);
  const { keys, fullKey, fullKeys } = useTokenKeys();
  const { data, isFetching } = useTokensQuery({ page: paging.page, size: paging.pageSize, ...search });
  useLeaveEmptyPage(paging, data);
  const t = useText();

  const runSearch = () => {
    setSearch({ keyword: nameInput.trim(), token: keyInput.trim() });
    setPage(1);
  };

  const columns: ColumnsType<TokenView> = [
    { title: t('pages.tokens.column.name', '名称'), dataIndex: 'name' },
    {
      title: t('pages.tokens.column.status', '状态'),
      key: 'status',
      render: (_, token) => (
        <Space size={4}>
          <LabelTag label={tokenStatusLabel(token)} />
          <Tag color="purple">{token.group || t('pages.tokens.group.user', '用户分组')}</Tag>
        </Space>
      ),
    },
    { title: t('pages.tokens.column.usedQuota', '已用额度'), dataIndex: 'used_quota', render: (quota: number) => formatQuota(quota) },
    {
      title: t('pages.tokens.column.remainQuota', '剩余额度'),
      key: 'remain_quota',
      render: (_, token) => (token.unlimited_quota ? <Tag color="geekblue">{t('pages.tokens.unlimited', '无限额度')}</Tag> : formatQuota(token.remain_quota)),
    },
    { title: t('pages.tokens.column.createdTime', '创建时间'), dataIndex: 'created_time', render: (time: number) => formatTime(time) },
    {
      title: t('pages.tokens.column.expiredTime', '过期时间'),
      dataIndex: 'expired_time',
      render: (time: number) => (time === NEVER ? t('pages.tokens.never', '永不过期') : formatTime(time)),
    },
    {
      title: t('pages.tokens.column.actions', '操作'),
      key: 'actions',
      render: (_, token) => <TokenActions token={token} keys={keys} fullKey={fullKey} onEdit={(id) => setEditing({ id })} />,
    },
  ];

  return (
    <Card>
      <Flex vertical gap={16}>
        <Alert type="warning" showIcon title={t('pages.tokens.warning', '令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。')} />
        <Flex gap={8} wrap>
          <Input
            allowClear
            style={{ maxWidth: 240 }}
            prefix={<SearchOutlined />}
            placeholder={t('pages.tokens.search.name', '搜索令牌的名称 ...')}
            value={nameInput}
            onChange={(event) => setNameInput(event.target.value)}
            onPressEnter={runSearch}
          />
          <Input
            allowClear
            style={{ maxWidth: 240 }}
            prefix={<SearchOutlined />}
            placeholder={t('pages.tokens.search.key', '搜索令牌的 key ...')}
            value={keyInput}
            onChange={(event) => setKeyInput(event.target.value)}
            onPressEnter={runSearch}
          />
          <Button type="primary" onClick={runSearch}>
            {t('common.search', '查询')}
          </Button>
          <Button icon={<PlusOutlined />} onClick={() => setEditing({})}>
            {t('pages.tokens.add', '添加令牌')}
          </Button>
          <CopySelectedButton count={selected.length} keys={() => fullKeys(selected)} messages={copyMessages} />
        </Flex>
        <Table<TokenView>
          rowKey="id"
          loading={isFetching}
          columns={columns}
          dataSource={data?.items ?? []}
          scroll={{ x: 'max-content' }}
          rowSelection={{ selectedRowKeys: selected, preserveSelectedRowKeys: true, onChange: (ids) => setSelected(ids as number[]) }}
          pagination={paging.pagination(data?.total ?? 0)}
        />
      </Flex>
      <TokenDrawer open={editing !== null} tokenId={editing?.id} onClose={() => setEditing(null)} />
    </Card>
  );
}

export default TokensPage;
