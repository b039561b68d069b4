import { Card, Flex, Table } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { Page } from '@aigw/contracts';
import { TaskFilters } from './TaskFilters';
import type { TaskList } from './use-task-list';

interface TaskListCardProps<T> {
  title: string;
  list: TaskList;
  /** The screen's list query (drawings or async tasks) with `list.args`. */
  query: { data?: Page<T>; isFetching: boolean; refetch(): unknown };
  columns: ColumnsType<T>;
  rowKey: (task: T) => string | number;
}

/** The frame of the drawing and task screens: the filters, then the table paged with the preference. */
export function TaskListCard<T extends object>({ title, list, query, columns, rowKey }: TaskListCardProps<T>) {
  const { data, isFetching, refetch } = query;
  return (
    <Card title={title}>
      <Flex vertical gap={16}>
        <TaskFilters
          admin={list.isAdmin}
          initialValues={list.initialValues}
          searching={isFetching}
          onSearch={(values) => {
            if (list.search(values)) void refetch();
          }}
        />
        <Table<T>
          rowKey={rowKey}
          size="small"
          scroll={{ x: 'max-content' }}
          columns={columns}
          dataSource={data?.items ?? []}
          loading={isFetching}
          pagination={list.paging.pagination(data?.total ?? 0)}
        />
      </Flex>
    </Card>
  );
}
