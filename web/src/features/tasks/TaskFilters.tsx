import { Form, Input } from 'antd';
import { useIntl } from 'react-intl';
import { ChannelIdItem, SearchButtonItem, TimeRangeItem } from '../../components/FilterItems';
import { rangeOf, timestampsOf, type TimeRange, type TimeWindow } from '../logs/time';
import type { TaskListArgs } from './api';

export interface TaskFilterValues {
  range: TimeRange;
  id: string;
  channel_id: string;
}

export function initialTaskFilters(window: TimeWindow): TaskFilterValues {
  return { range: rangeOf(window), id: '', channel_id: '' };
}

export type TaskFilterArgs = Omit<TaskListArgs, 'admin' | 'p' | 'page_size'>;

/** The form as the list routes' filters; the channel only for admins. */
export function toTaskFilterArgs(values: TaskFilterValues, admin: boolean): TaskFilterArgs {
  const args: TaskFilterArgs = { id: values.id.trim(), ...timestampsOf(values.range) };
  if (admin) args.channel_id = values.channel_id.trim();
  return args;
}

interface TaskFiltersProps {
  admin: boolean;
  initialValues: TaskFilterValues;
  searching: boolean;
  onSearch: (values: TaskFilterValues) => void;
}

/** Drawing and task filters: channel id (admin only), task id and time range. */
export function TaskFilters({ admin, initialValues, searching, onSearch }: TaskFiltersProps) {
  const intl = useIntl();
  const taskId = intl.formatMessage({ id: 'pages.tasks.filter.taskId', defaultMessage: '任务 ID' });
  return (
    <Form<TaskFilterValues>
      layout="inline"
      initialValues={initialValues}
      onFinish={(values) => onSearch({ ...initialValues, ...values })}
      style={{ rowGap: 12 }}
    >
      {admin && <ChannelIdItem name="channel_id" />}
      <Form.Item name="id">
        <Input allowClear placeholder={taskId} aria-label={taskId} />
      </Form.Item>
      <TimeRangeItem />
      <SearchButtonItem searching={searching} />
    </Form>
  );
}
