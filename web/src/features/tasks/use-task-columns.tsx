import { Tag } from 'antd';
import type { ColumnsType, ColumnType } from 'antd/es/table';
import { useText } from '../../app/use-text';
import { LabelTag, type Label } from '../../components/LabelTag';
import { formatTimestamp } from '../logs/time';
import { DurationTag, ProgressCell, TextCell } from './cells';

/** What both task lists show of a task. */
interface TaskRow {
  submit_time: number;
  finish_time: number;
  channel_id: number;
}

/**
 * The columns the drawing and task screens share (title, cell, the admin-only channel); each
 * screen places them among its own.
 */
export function useTaskColumns<T extends TaskRow>(admin: boolean) {
  const title = useText();

  const submitTime: ColumnType<T> = {
    title: title('pages.tasks.column.submitTime', '提交时间'),
    dataIndex: 'submit_time',
    key: 'submitTime',
    render: (value: number) => formatTimestamp(value),
  };
  const duration: ColumnType<T> = {
    title: title('pages.tasks.column.duration', '花费时间'),
    key: 'duration',
    render: (_: unknown, task) => <DurationTag submit={task.submit_time} finish={task.finish_time} />,
  };
  /** Spread into the columns: empty for users. */
  const channel: ColumnsType<T> = admin
    ? [
        {
          title: title('pages.tasks.column.channel', '渠道'),
          dataIndex: 'channel_id',
          key: 'channel',
          render: (id: number) => (id ? <Tag color="blue">{id}</Tag> : null),
        },
      ]
    : [];
  const action = (label: (action: string) => Label): ColumnType<T> => ({
    title: title('pages.tasks.column.action', '类型'),
    dataIndex: 'action',
    key: 'action',
    render: (value: string) => <LabelTag label={label(value)} />,
  });
  /** The task id field: mj_id for drawings, task_id for tasks. */
  const taskId = (dataIndex: string): ColumnType<T> => ({ title: title('pages.tasks.column.taskId', '任务ID'), dataIndex, key: 'taskId' });
  const status = (label: (status: string) => Label): ColumnType<T> => ({
    title: title('pages.tasks.column.status', '任务状态'),
    dataIndex: 'status',
    key: 'status',
    render: (value: string) => <LabelTag label={label(value)} />,
  });
  const progress: ColumnType<T> = {
    title: title('pages.tasks.column.progress', '进度'),
    dataIndex: 'progress',
    key: 'progress',
    render: (value: string) => <ProgressCell progress={value} />,
  };
  const failReason: ColumnType<T> = {
    title: title('pages.tasks.column.failReason', '失败原因'),
    dataIndex: 'fail_reason',
    key: 'failReason',
    render: (text: string) => <TextCell text={text} />,
  };

  return { submitTime, duration, channel, action, taskId, status, progress, failReason };
}
