import { Button, DatePicker, Form, Input, Select } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import { useIntl } from 'react-intl';
import { LogType } from '@aigw/contracts';
import type { LogFilterParams } from './api';
import { logTypeLabels } from './log-labels';
import { DATE_TIME_FORMAT, toUnixSeconds, type TimeWindow } from './time';

/** What the filter form holds; `range` is null when the user cleared it. */
export interface LogFilterValues {
  range: [Dayjs, Dayjs] | null;
  token_name: string;
  model_name: string;
  group: string;
  channel: string;
  username: string;
  type: number;
}

export function initialFilterValues(window: TimeWindow): LogFilterValues {
  return { range: [dayjs(window.start), dayjs(window.end)], token_name: '', model_name: '', group: '', channel: '', username: '', type: LogType.All };
}

/** The form's values as the routes' filters (admin-only ones only for admins). */
export function toFilterParams(values: LogFilterValues, admin: boolean): LogFilterParams {
  const params: LogFilterParams = {
    type: values.type,
    token_name: values.token_name.trim(),
    model_name: values.model_name.trim(),
    group: values.group.trim(),
    start_timestamp: values.range ? toUnixSeconds(values.range[0].valueOf()) : undefined,
    end_timestamp: values.range ? toUnixSeconds(values.range[1].valueOf()) : undefined,
  };
  if (admin) {
    params.username = values.username.trim();
    params.channel = values.channel.trim();
  }
  return params;
}

interface LogFiltersProps {
  admin: boolean;
  initialValues: LogFilterValues;
  searching: boolean;
  onSearch: (values: LogFilterValues) => void;
}

/** The log filters: time range, token, model, group; admins also channel id and user name; the type. */
export function LogFilters({ admin, initialValues, searching, onSearch }: LogFiltersProps) {
  const intl = useIntl();
  const [form] = Form.useForm<LogFilterValues>();
  const t = (id: string, defaultMessage: string) => intl.formatMessage({ id, defaultMessage });

  return (
    <Form
      form={form}
      layout="inline"
      initialValues={initialValues}
      onFinish={(values) => onSearch({ ...initialValues, ...values })}
      // The type is a quick switch: it applies at once, with the other filters as they stand.
      onValuesChange={(changed) => { if ('type' in changed) form.submit(); }}
      style={{ rowGap: 12 }}
    >
      <Form.Item name="range" label={t('pages.logs.filter.timeRange', '时间范围')}>
        <DatePicker.RangePicker
          showTime
          format={DATE_TIME_FORMAT}
          placeholder={[t('pages.logs.filter.start', '起始时间'), t('pages.logs.filter.end', '结束时间')]}
        />
      </Form.Item>
      <Form.Item name="token_name">
        <Input allowClear placeholder={t('pages.logs.filter.tokenName', '令牌名称')} aria-label={t('pages.logs.filter.tokenName', '令牌名称')} />
      </Form.Item>
      <Form.Item name="model_name">
        <Input allowClear placeholder={t('pages.logs.filter.modelName', '模型名称')} aria-label={t('pages.logs.filter.modelName', '模型名称')} />
      </Form.Item>
      <Form.Item name="group">
        <Input allowClear placeholder={t('pages.logs.filter.group', '分组')} aria-label={t('pages.logs.filter.group', '分组')} />
      </Form.Item>
      {admin && (
        <Form.Item name="channel" rules={[{ pattern: /^\d*$/, message: t('pages.logs.filter.channel.invalid', '渠道 ID 必须是数字') }]}>
          <Input allowClear placeholder={t('pages.logs.filter.channel', '渠道 ID')} aria-label={t('pages.logs.filter.channel', '渠道 ID')} />
        </Form.Item>
      )}
      {admin && (
        <Form.Item name="username">
          <Input allowClear placeholder={t('pages.logs.filter.username', '用户名称')} aria-label={t('pages.logs.filter.username', '用户名称')} />
        </Form.Item>
      )}
      <Form.Item name="type" label={t('pages.logs.filter.type', '日志类型')}>
        <Select
          style={{ width: 120 }}
          aria-label={t('pages.logs.filter.type', '日志类型')}
          options={Object.values(LogType).map((value) => ({ value, label: intl.formatMessage(logTypeLabels[value]) }))}
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
