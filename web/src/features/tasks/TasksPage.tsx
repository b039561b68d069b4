import { Card, Flex, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useIntl } from 'react-intl';
import { defaultTaskWindow, formatTimestamp } from '../logs/time';
import { useAsyncTasksQuery, type AsyncTask } from './api';
import { DurationTag, LabelTag, ProgressCell, TextCell } from './cells';
import { platformNames, taskAction, taskStatus } from './labels';
import { TaskFilters } from './TaskFilters';
import { useTaskList } from './use-task-list';

/** /task: async (music and lyrics) tasks; admins see everyone's (/api/task/) and the channel. */
export function TasksPage() {
  const intl = useIntl();
  const { isAdmin, initialValues, args, search, pagination } = useTaskList(defaultTaskWindow);
  const { data, isFetching, refetch } = useAsyncTasksQuery(args);
  const t = (id: string, defaultMessage: string) => intl.formatMessage({ id, defaultMessage });

  const columns: ColumnsType<AsyncTask> = [
    { title: t('pages.tasks.column.submitTime', '提交时间'), dataIndex: 'submit_time', key: 'submitTime', render: (value: number) => formatTimestamp(value) },
    { title: t('pages.tasks.column.finishTime', '结束时间'), dataIndex: 'finish_time', key: 'finishTime', render: (value: number) => formatTimestamp(value) || '-' },
    {
      title: t('pages.tasks.column.duration', '花费时间'),
      key: 'duration',
      render: (_: unknown, task) => <DurationTag submit={task.submit_time} finish={task.finish_time} />,
    },
    ...(isAdmin
      ? [{
        title: t('pages.tasks.column.channel', '渠道'),
        dataIndex: 'channel_id',
        key: 'channel',
        render: (channel: number) => (channel ? <Tag color="blue">{channel}</Tag> : null),
      }]
      : []),
    {
      title: t('pages.tasks.column.platform', '平台'),
      dataIndex: 'platform',
      key: 'platform',
      render: (platform: string) => (platform ? <Tag color="green">{platformNames[platform] ?? platform}</Tag> : null),
    },
    { title: t('pages.tasks.column.action', '类型'), dataIndex: 'action', key: 'action', render: (action: string) => <LabelTag label={taskAction(action)} /> },
    { title: t('pages.tasks.column.taskId', '任务ID'), dataIndex: 'task_id', key: 'taskId' },
    { title: t('pages.tasks.column.status', '任务状态'), dataIndex: 'status', key: 'status', render: (status: string) => <LabelTag label={taskStatus(status)} /> },
    { title: t('pages.tasks.column.progress', '进度'), dataIndex: 'progress', key: 'progress', render: (progress: string) => <ProgressCell progress={progress} /> },
    { title: t('pages.tasks.column.failReason', '失败原因'), dataIndex: 'fail_reason', key: 'failReason', render: (text: string) => <TextCell text={text} /> },
  ];

  return (
    <Card title={t('pages.tasks.title', '异步任务')}>
      <Flex vertical gap={16}>
        <TaskFilters admin={isAdmin} initialValues={initialValues} searching={isFetching} onSearch={(values) => { if (search(values)) void refetch(); }} />
        <Table<AsyncTask>
          rowKey={(task) => task.id ?? task.task_id}
          size="small"
          scroll={{ x: 'max-content' }}
          columns={columns}
          dataSource={data?.items ?? []}
          loading={isFetching}
          pagination={pagination(data?.total ?? 0)}
        />
      </Flex>
    </Card>
  );
}

export default TasksPage;
