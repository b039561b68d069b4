import { useCallback, useEffect, useState } from 'react';
import { Button, Card, Form, Input, Select, Table } from 'antd';
import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { useNavigate, useParams } from 'react-router';
import type { UserRow } from '@aigw/contracts';
import { useTablePaging } from '../../components/use-table-paging';
import { useGroupNamesQuery } from '../groups/api';
import { useUserPageQuery } from './api';
import { AddUserDrawer } from './AddUserDrawer';
import { EditUserDrawer } from './EditUserDrawer';
import { useUserColumns } from './use-user-columns';

interface Filter {
  keyword: string;
  group: string;
}

const noFilter: Filter = { keyword: '', group: '' };

/** A positive integer id from the route (/user/edit/:id), else null. */
function routeUserId(param: string | undefined): number | null {
  return param && /^[1-9]\d{0,9}$/.test(param) ? Number(param) : null;
}

/**
 * /user (admin): search by keyword and group, add users, and a paginated table with the manage
 * actions. /user/edit/:id renders the same page with that user's edit drawer open.
 */
export function UsersPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { id: idParam } = useParams();
  const [form] = Form.useForm<Filter>();
  const [filter, setFilter] = useState<Filter>(noFilter);
  const paging = useTablePaging({ firstPage: 0 });
  const { page, setPage } = paging;
  const [adding, setAdding] = useState(false);
  const routeId = routeUserId(idParam);
  const [editingId, setEditingId] = useState<number | null>(routeId);

  useEffect(() => setEditingId(routeId), [routeId]);

  const { data, isFetching, refetch } = useUserPageQuery({ ...filter, p: page, page_size: paging.pageSize });
  const { data: groups = [] } = useGroupNamesQuery();

  const onSearch = (values: Partial<Filter>) => {
    const next = { keyword: values.keyword?.trim() ?? '', group: values.group ?? '' };
    // The same query again still asks the server (the query button is also a refresh).
    if (next.keyword === filter.keyword && next.group === filter.group && page === 1) void refetch();
    setFilter(next);
    setPage(1);
  };

  const closeEdit = useCallback(() => {
    setEditingId(null);
    if (idParam !== undefined) void navigate('/user', { replace: true });
  }, [idParam, navigate]);

  const columns = useUserColumns(setEditingId);

  return (
    <Card>
      <Form<Filter> form={form} name="userSearch" layout="inline" onFinish={onSearch} style={{ marginBottom: 16, rowGap: 8 }}>
        <Form.Item name="keyword" style={{ flex: '1 1 280px' }}>
          <Input
            allowClear
            prefix={<SearchOutlined />}
            aria-label={intl.formatMessage({ id: 'pages.users.search.keyword', defaultMessage: '搜索用户' })}
            placeholder={intl.formatMessage({
              id: 'pages.users.search.placeholder',
              defaultMessage: '支持搜索用户的 ID、用户名、显示名称和邮箱地址 ...',
            })}
          />
        </Form.Item>
        <Form.Item name="group">
          <Select
            allowClear
            showSearch
            style={{ minWidth: 160 }}
            aria-label={intl.formatMessage({ id: 'pages.users.search.group', defaultMessage: '选择分组' })}
            placeholder={intl.formatMessage({ id: 'pages.users.search.group', defaultMessage: '选择分组' })}
            options={groups.map((group) => ({ value: group, label: group }))}
            // Picking or clearing a group filters at once.
            onChange={() => form.submit()}
          />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={isFetching}>
            {intl.formatMessage({ id: 'common.search', defaultMessage: '查询' })}
          </Button>
        </Form.Item>
        <Form.Item>
          <Button icon={<PlusOutlined />} onClick={() => setAdding(true)}>
            {intl.formatMessage({ id: 'pages.users.add.open', defaultMessage: '添加用户' })}
          </Button>
        </Form.Item>
      </Form>
      <Table<UserRow>
        rowKey="id"
        columns={columns}
        dataSource={data?.items ?? []}
        loading={isFetching}
        scroll={{ x: 'max-content' }}
        pagination={paging.pagination(data?.total ?? 0)}
      />
      <AddUserDrawer open={adding} onClose={() => setAdding(false)} />
      <EditUserDrawer id={editingId} onClose={closeEdit} />
    </Card>
  );
}

export default UsersPage;
