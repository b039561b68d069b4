import { useState } from 'react';
import { Button, Card, Form, Input, Select, Space } from 'antd';
import { useIntl } from 'react-intl';
import { FormDrawer } from '../../components/FormDrawer';
import { useTablePaging } from '../../components/use-table-paging';
import { readJson, storageKeys, write } from '../../lib/storage';
import { useGroupNamesQuery } from '../groups/api';
import { useChannelsQuery } from './api';
import { ChannelForm } from './ChannelForm';
import { ChannelsTable } from './ChannelsTable';
import { ChannelsToolbar } from './ChannelsToolbar';
import { TagEditModal } from './TagEditModal';

interface Search {
  keyword: string;
  model: string;
  group: string;
}

const noSearch: Search = { keyword: '', model: '', group: '' };

/** /channel (admin): search, actions, the channel table, the editor drawer and the tag dialog. */
export function ChannelsPage() {
  const intl = useIntl();
  const t = intl.formatMessage;
  const paging = useTablePaging();
  const { page, setPage } = paging;
  const [search, setSearch] = useState<Search>(noSearch);
  const [idSort, setIdSort] = useState(() => readJson<boolean>(storageKeys.idSort) === true);
  const [tagMode, setTagMode] = useState(false);
  const [batchMode, setBatchMode] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  // undefined: closed; null: create; a number: edit that channel.
  const [editing, setEditing] = useState<number | null | undefined>(undefined);
  const [editingTag, setEditingTag] = useState<string | null>(null);
  const { data: groups } = useGroupNamesQuery();
  const { data, isFetching, refetch } = useChannelsQuery({ p: page, page_size: paging.pageSize, id_sort: idSort, tag_mode: tagMode, ...search });

  const onIdSortChange = (value: boolean) => {
    write(storageKeys.idSort, value);
    setIdSort(value);
    setPage(1);
  };

  return (
    <Card title={t({ id: 'pages.channels.title', defaultMessage: '渠道' })}>
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Form<Partial<Search>>
          layout="inline"
          onFinish={(values) => {
            setSearch({ keyword: values.keyword ?? '', model: values.model ?? '', group: values.group ?? '' });
            setPage(1);
          }}
        >
          <Form.Item name="keyword">
            <Input
              allowClear
              placeholder={t({ id: 'pages.channels.search.keyword', defaultMessage: '搜索渠道的 ID，名称和密钥 ...' })}
              style={{ width: 240 }}
            />
          </Form.Item>
          <Form.Item name="model">
            <Input allowClear placeholder={t({ id: 'pages.channels.search.model', defaultMessage: '模型关键字' })} style={{ width: 180 }} />
          </Form.Item>
          <Form.Item name="group">
            <Select
              allowClear
              style={{ width: 160 }}
              placeholder={t({ id: 'pages.channels.search.group', defaultMessage: '选择分组' })}
              options={(groups ?? []).map((group) => ({ value: group, label: group }))}
            />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit">
              {t({ id: 'pages.channels.search.submit', defaultMessage: '查询' })}
            </Button>
          </Form.Item>
        </Form>
        <ChannelsToolbar
          idSort={idSort}
          tagMode={tagMode}
          batchMode={batchMode}
          selected={selected}
          onAdd={() => setEditing(null)}
          onRefresh={() => void refetch()}
          onIdSortChange={onIdSortChange}
          onTagModeChange={(value) => {
            setTagMode(value);
            setPage(1);
          }}
          onBatchModeChange={(value) => {
            setBatchMode(value);
            setSelected([]);
          }}
          onBatchDone={() => setSelected([])}
        />
        <ChannelsTable
          rows={data?.items ?? []}
          loading={isFetching}
          pagination={paging.pagination(data?.total ?? 0)}
          selection={batchMode ? selected : null}
          onSelectionChange={setSelected}
          onEdit={(id) => setEditing(id)}
          onEditTag={setEditingTag}
        />
      </Space>
      <FormDrawer
        open={editing !== undefined}
        title={
          editing === null
            ? t({ id: 'pages.channels.create.title', defaultMessage: '创建新的渠道' })
            : t({ id: 'pages.channels.edit.title', defaultMessage: '更新渠道信息' })
        }
        onClose={() => setEditing(undefined)}
      >
        <ChannelForm channelId={editing ?? undefined} onDone={() => setEditing(undefined)} onCancel={() => setEditing(undefined)} />
      </FormDrawer>
      {editingTag !== null && <TagEditModal tag={editingTag} onClose={() => setEditingTag(null)} />}
    </Card>
  );
}

export default ChannelsPage;
