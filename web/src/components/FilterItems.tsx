import { Button, DatePicker, Form, Input } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { useText } from '../app/use-text';
import { DATE_TIME_FORMAT } from '../features/logs/time';

// Fields the filter forms of the log, drawing, task and dashboard screens share: each is a
// Form.Item of the surrounding (inline) form, with one set of messages.

/** The time range, form field `range`; `requiredMessage` where the screen cannot do without one. */
export function TimeRangeItem({ requiredMessage }: { requiredMessage?: string }) {
  const t = useText();
  return (
    <Form.Item
      name="range"
      label={t('common.filter.timeRange', '时间范围')}
      rules={requiredMessage ? [{ required: true, message: requiredMessage }] : undefined}
    >
      <DatePicker.RangePicker showTime format={DATE_TIME_FORMAT} placeholder={[t('common.filter.start', '起始时间'), t('common.filter.end', '结束时间')]} />
    </Form.Item>
  );
}

/** An admin's channel id filter under form field `name`: digits only. */
export function ChannelIdItem({ name }: { name: string }) {
  const intl = useIntl();
  const label = intl.formatMessage({ id: 'common.filter.channel', defaultMessage: '渠道 ID' });
  return (
    <Form.Item
      name={name}
      rules={[{ pattern: /^\d*$/, message: intl.formatMessage({ id: 'common.filter.channel.invalid', defaultMessage: '渠道 ID 必须是数字' }) }]}
    >
      <Input allowClear placeholder={label} aria-label={label} />
    </Form.Item>
  );
}

/** The form's submit button, spinning while the list loads. */
export function SearchButtonItem({ searching }: { searching: boolean }) {
  const intl = useIntl();
  return (
    <Form.Item>
      <Button type="primary" htmlType="submit" icon={<SearchOutlined />} loading={searching}>
        {intl.formatMessage({ id: 'common.search', defaultMessage: '查询' })}
      </Button>
    </Form.Item>
  );
}
