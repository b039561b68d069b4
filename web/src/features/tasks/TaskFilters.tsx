import { Button, DatePicker, Form, Input } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { useIntl } from 'react-intl';
import { DATE_TIME_FORMAT, toUnixSeconds, type TimeWindow } from '../logs/time';
import type { TaskListArgs } from './api';

export interface TaskFilterValues {
  range: [Dayjs, Dayjs] | null;
  id: string;
  channel_id: string;
}

export function initialTaskFilters(window: TimeWindow): TaskFilterValues {
  return { range: [dayjs(window.start), dayjs(window.end)], id: '', channel_id: '' };
}

export type TaskFilterArgs = Omit<TaskListArgs, 'admin' | 'p' | 'page_size'>;

/** The form as the list routes' filters; the channel only for admins. */
export function toTaskFilterArgs(values: TaskFilterValues, admin: boolean): TaskFilterArgs {
  const args: TaskFilterArgs = {
    id: values.id.trim(),
    start_timestamp: values.range ? toUnixSeconds(values.range[0].valueOf()) : undefined,
    end_timestamp: values.range ? toUnixSeconds(values.range[1].valueOf()) : undefined,
  };
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
  const t = (id: string, defaultMessage: string) => intl.formatMessage({ id, defaultMessage });
  return (
    <Form<TaskFilterValues> layout="inline" initialValues={initialValues} onFinish={(values) => onSearch({ ...initialValues, ...values })} style={{ rowGap: 12 }}>
      {admin && (
        <Form.Item name="channel_id" rules={[{ pattern: /^\d*$/, message: t('pages.tasks.filter.channel.invalid', '渠道 ID 必须是数字') }]}>
          <Input allowClear placeholder={t('pages.tasks.filter.channel', '渠道 ID')} aria-label={t('pages.tasks.filter.channel', '渠道 ID')} />
        </Form.Item>
      )}
      <Form.Item name="id">
        <Input allowClear placeholder={t('pages.tasks.filter.taskId', '任务 ID')} aria-label={t('pages.tasks.filter.taskId', '任务 ID')} />
      </Form.Item>
      <Form.Item name="range" label={t('pages.tasks.filter.timeRange', '时间范围')}>
        <DatePicker.RangePicker
          showTime
          format={DATE_TIME_FORMAT}
          placeholder={[t('pages.tasks.filter.start', '起始时间'), t('pages.tasks.filter.end', '结束时间')]}
        />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined />} loading={searching}>
          {intl.formatMessage({ id: 'common.search', defaultMessage: '查询' })}
        </Button>
      </Form.Item>
    </Form>
  );
}
