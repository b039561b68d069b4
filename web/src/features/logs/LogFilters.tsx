import { Form, Input, Select } from 'antd';
import { useIntl } from 'react-intl';
import { LogType } from '@aigw/contracts';
import { useText } from '../../app/use-text';
import { ChannelIdItem, SearchButtonItem, TimeRangeItem } from '../../components/FilterItems';
import type { LogFilterParams } from './api';
import { logTypeLabels } from './log-labels';
import { rangeOf, timestampsOf, type TimeRange, type TimeWindow } from './time';

/** What the filter form holds; `range` is null when the user cleared it. */
export interface LogFilterValues {
  range: TimeRange;
  token_name: string;
  model_name: string;
  group: string;
  channel: string;
  username: string;
  type: number;
}

export function initialFilterValues(window: TimeWindow): LogFilterValues {
  return { range: rangeOf(window), token_name: '', model_name: '', group: '', channel: '', username: '', type: LogType.All };
}

/** The form's values as the routes' filters (admin-only ones only for admins). */
export function toFilterParams(values: LogFilterValues, admin: boolean): LogFilterParams {
  const params: LogFilterParams = {
    type: values.type,
    token_name: values.token_name.trim(),
    model_name: values.model_name.trim(),
    group: values.group.trim(),
    ...timestampsOf(values.range),
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
  const t = useText();

  return (
    <Form
      form={form}
      layout="inline"
      initialValues={initialValues}
      onFinish={(values) => onSearch({ ...initialValues, ...values })}
      // The type is a quick switch: it applies at once, with the other filters as they stand.
      onValuesChange={(changed) => {
        if ('type' in changed) form.submit();
      }}
      style={{ rowGap: 12 }}
    >
      <TimeRangeItem />
      <Form.Item name="token_name">
        <Input allowClear placeholder={t('pages.logs.filter.tokenName', '令牌名称')} aria-label={t('pages.logs.filter.tokenName', '令牌名称')} />
      </Form.Item>
      <Form.Item name="model_name">
        <Input allowClear placeholder={t('pages.logs.filter.modelName', '模型名称')} aria-label={t('pages.logs.filter.modelName', '模型名称')} />
      </Form.Item>
      <Form.Item name="group">
        <Input allowClear placeholder={t('pages.logs.filter.group', '分组')} aria-label={t('pages.logs.filter.group', '分组')} />
      </Form.Item>
      {admin && <ChannelIdItem name="channel" />}
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
      <SearchButtonItem searching={searching} />
    </Form>
  );
}
