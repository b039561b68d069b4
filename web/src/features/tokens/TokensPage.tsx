import { useEffect, useState } from 'react';
import { Alert, App, Button, Card, Flex, Input, Space, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { CopyOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { TokenStatus, type TokenView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { pageSizeChosen, pageSizeOptions } from '../../app/preferences';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { copyText } from '../../lib/clipboard';
import { useTokensQuery } from './api';
import { TokenActions } from './TokenActions';
import { TokenDrawer } from './TokenDrawer';
import { formatTime, NEVER } from './token-rules';
import { useTokenKeys } from './use-token-keys';

/** Which drawer is open: none, a new token, or the token with this id. */
type Editing = null | { id?: number };

/** /token: the user's own sk- tokens. */
export function TokensPage() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const { message } = App.useApp();
  const formatQuota = useFormatQuota();
  const pageSize = useAppSelector((state) => state.preferences.pageSize);
  const [nameInput, setNameInput] = useState('');
  const [keyInput, setKeyInput] = useState('');
  const [search, setSearch] = useState({ keyword: '', token: '' });
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<number[]>([]);
  const [copying, setCopying] = useState(false);
  const [editing, setEditing] = useState<Editing>(null);
  const { keys, fullKey } = useTokenKeys();
  const { data, isFetching } = useTokensQuery({ page, size: pageSize, ...search });
  // Deleting the last row of the last page leaves an empty page: step back to the one before.
  useEffect(() => {
    if (data && data.items.length === 0 && data.total > 0 && page > 1) setPage(Math.ceil(data.total / pageSize));
  }, [data, page, pageSize]);
  const t = (id: string, defaultMessage: string, values?: Record<string, string | number>) => intl.formatMessage({ id, defaultMessage }, values);

  const runSearch = () => {
    setSearch({ keyword: nameInput.trim(), token: keyInput.trim() });
    setPage(1);
  };

  const copySelected = async () => {
    if (selected.length === 0) {
      void message.warning(t('pages.tokens.copySelected.none', '请至少选择一个令牌！'));
      return;
    }
    setCopying(true);
    const lines: string[] = [];
    // One at a time: a refused reveal (rate limit) stops the copy instead of firing the rest.
    for (const id of selected) {
      const key = await fullKey(id);
      if (!key) break;
      lines.push(key);
    }
    setCopying(false);
    if (lines.length === selected.length && await copyText(lines.join('\n'))) {
      void message.success(t('pages.tokens.copySelected.done', '已复制 {count} 个令牌', { count: lines.length }));
    }
  };

  const statusTag = (token: TokenView) => {
    switch (token.status) {
      case TokenStatus.Enabled:
        return token.model_limits_enabled
          ? <Tag color="blue">{t('pages.tokens.status.limitedModels', '限制模型')}</Tag>
          : <Tag color="green">{t('pages.tokens.status.enabled', '已启用')}</Tag>;
      case TokenStatus.Disabled:
        return <Tag color="red">{t('pages.tokens.status.disabled', '已禁用')}</Tag>;
      case TokenStatus.Expired:
        return <Tag color="gold">{t('pages.tokens.status.expired', '已过期')}</Tag>;
      case TokenStatus.Exhausted:
        return <Tag>{t('pages.tokens.status.exhausted', '已耗尽')}</Tag>;
      default:
        return <Tag>{t('pages.tokens.status.unknown', '未知状态')}</Tag>;
    }
  };

  const columns: ColumnsType<TokenView> = [
    { title: t('pages.tokens.column.name', '名称'), dataIndex: 'name' },
    {
      title: t('pages.tokens.column.status', '状态'),
      key: 'status',
      render: (_, token) => (
        <Space size={4}>
          {statusTag(token)}
          <Tag color="purple">{token.group || t('pages.tokens.group.user', '用户分组')}</Tag>
        </Space>
      ),
    },
    { title: t('pages.tokens.column.usedQuota', '已用额度'), dataIndex: 'used_quota', render: (quota: number) => formatQuota(quota) },
    {
      title: t('pages.tokens.column.remainQuota', '剩余额度'),
      key: 'remain_quota',
      render: (_, token) => (token.unlimited_quota
        ? <Tag color="geekblue">{t('pages.tokens.unlimited', '无限额度')}</Tag>
        : formatQuota(token.remain_quota)),
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
        <Alert type="warning" showIcon message={t('pages.tokens.warning', '令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。')} />
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
          <Button type="primary" onClick={runSearch}>{t('pages.tokens.search.submit', '查询')}</Button>
          <Button icon={<PlusOutlined />} onClick={() => setEditing({})}>{t('pages.tokens.add', '添加令牌')}</Button>
          <Button icon={<CopyOutlined />} loading={copying} onClick={() => void copySelected()}>{t('pages.tokens.copySelected', '复制所选令牌')}</Button>
        </Flex>
        <Table<TokenView>
          rowKey="id"
          loading={isFetching}
          columns={columns}
          dataSource={data?.items ?? []}
          scroll={{ x: 'max-content' }}
          rowSelection={{ selectedRowKeys: selected, preserveSelectedRowKeys: true, onChange: (ids) => setSelected(ids as number[]) }}
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
      <TokenDrawer open={editing !== null} tokenId={editing?.id} onClose={() => setEditing(null)} />
    </Card>
  );
}

export default TokensPage;
