import { Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useText } from '../../app/use-text';
import { defaultTaskWindow, formatTimestamp } from '../logs/time';
import type { AsyncTask } from '@aigw/contracts';
import { useAsyncTasksQuery } from './api';
import { TaskResultCell } from './cells';
import { platformNames, taskAction, taskStatus } from './labels';
import { TaskListCard } from './TaskListCard';
import { useTaskColumns } from './use-task-columns';
import { useTaskList } from './use-task-list';

/** /task: async (music and lyrics) tasks; admins see everyone's (/api/task/) and the channel. */
export function TasksPage() {
  const list = useTaskList(defaultTaskWindow);
  const query = useAsyncTasksQuery(list.args);
  const shared = useTaskColumns<AsyncTask>(list.isAdmin);
  const t = useText();

  const columns: ColumnsType<AsyncTask> = [
    shared.submitTime,
    {
      title: t('pages.tasks.column.finishTime', '结束时间'),
      dataIndex: 'finish_time',
      key: 'finishTime',
      render: (value: number) => formatTimestamp(value) || '-',
    },
    shared.duration,
    ...shared.channel,
    {
      title: t('pages.tasks.column.platform', '平台'),
      dataIndex: 'platform',
      key: 'platform',
      render: (platform: string) => (platform ? <Tag color="green">{platformNames[platform] ?? platform}</Tag> : null),
    },
    shared.action(taskAction),
    shared.taskId('task_id'),
    shared.status(taskStatus),
    shared.progress,
    { title: t('pages.tasks.column.result', '结果'), dataIndex: 'data', key: 'result', render: (data: string | undefined) => <TaskResultCell data={data} /> },
    shared.failReason,
  ];

  return <TaskListCard title={t('pages.tasks.title', '异步任务')} list={list} query={query} columns={columns} rowKey={(task) => task.id ?? task.task_id} />;
}

export default TasksPage;
