import { useMemo, useState } from 'react';
import { Card, Col, Empty, Flex, Form, Input, Row, Select, Spin, Statistic, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { defineMessages, useIntl } from 'react-intl';
import { useAccess, useFormatQuota, useStatus } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { SearchButtonItem, TimeRangeItem } from '../../components/FilterItems';
import { rangeOf, toUnixSeconds } from '../logs/time';
import { useUsageDataQuery, type UsageDataArgs } from './api';
import { defaultDashboardWindow, granularities, summarize, toGranularity, type Granularity } from './buckets';
import { UsageCharts } from './UsageCharts';

interface FilterValues {
  range: [Dayjs, Dayjs];
  username: string;
}

/** /detail: usage per model over time from the hourly data, grouped by hour, day or week. */
export function DashboardPage() {
  const intl = useIntl();
  const { isAdmin } = useAccess();
  const status = useStatus();
  const formatQuota = useFormatQuota();
  const [form] = Form.useForm<FilterValues>();
  const [granularity, setGranularity] = useState<Granularity>(() => toGranularity(status?.data_export_default_time));
  // The opening window suits the default granularity (a day of hours, a week of days, 30 days of weeks).
  const [initialValues] = useState<FilterValues>(() => {
    return { range: rangeOf(defaultDashboardWindow(granularity)), username: '' };
  });
  const [args, setArgs] = useState<UsageDataArgs>(() => toArgs(initialValues, isAdmin));
  const { data, isFetching, refetch } = useUsageDataQuery(args);
  const summary = useMemo(() => summarize(data ?? [], granularity), [data, granularity]);
  const t = useText();

  const search = (values: FilterValues) => {
    const next = toArgs({ ...initialValues, ...values }, isAdmin);
    if (JSON.stringify(next) === JSON.stringify(args)) void refetch();
    else setArgs(next);
  };

  return (
    <Card title={t('pages.dashboard.title', '数据看板')}>
      <Flex vertical gap={16}>
        <Form form={form} layout="inline" initialValues={initialValues} onFinish={search} style={{ rowGap: 12 }}>
          <TimeRangeItem requiredMessage={t('pages.dashboard.filter.timeRange.required', '请选择时间范围')} />
          {isAdmin && (
            <Form.Item name="username">
              <Input allowClear placeholder={t('pages.dashboard.filter.username', '用户名称')} aria-label={t('pages.dashboard.filter.username', '用户名称')} />
            </Form.Item>
          )}
          <Form.Item label={t('pages.dashboard.filter.granularity', '时间粒度')}>
            <Select<Granularity>
              style={{ width: 100 }}
              aria-label={t('pages.dashboard.filter.granularity', '时间粒度')}
              value={granularity}
              onChange={setGranularity}
              options={granularities.map((value) => ({ value, label: intl.formatMessage(granularityLabels[value]) }))}
            />
          </Form.Item>
          <SearchButtonItem searching={isFetching} />
        </Form>
        <Typography.Text type="secondary">
          {t('pages.dashboard.hint', '数据按小时汇总，按所选时间粒度合并显示。')}
          {!isAdmin && t('pages.dashboard.hint.selfLimit', '一次最多查询 30 天。')}
        </Typography.Text>
        <Row gutter={[16, 16]}>
          <Col xs={24} sm={8}>
            <Card size="small">
              <Statistic title={t('pages.dashboard.total.quota', '统计额度')} value={formatQuota(summary.totals.quota)} />
            </Card>
          </Col>
          <Col xs={24} sm={8}>
            <Card size="small">
              <Statistic title={t('pages.dashboard.total.tokens', '统计 Tokens')} value={summary.totals.tokens} />
            </Card>
          </Col>
          <Col xs={24} sm={8}>
            <Card size="small">
              <Statistic title={t('pages.dashboard.total.count', '统计次数')} value={summary.totals.count} />
            </Card>
          </Col>
        </Row>
        <Spin spinning={isFetching}>
          {/* No empty-state claim before the first answer arrives. */}
          {data === undefined ? (
            <div style={{ minHeight: 200 }} />
          ) : summary.buckets.length === 0 ? (
            <Empty description={t('pages.dashboard.empty', '所选时间范围内暂无数据')} />
          ) : (
            <UsageCharts summary={summary} />
          )}
        </Spin>
      </Flex>
    </Card>
  );
}

const granularityLabels = defineMessages({
  hour: { id: 'pages.dashboard.granularity.hour', defaultMessage: '小时' },
  day: { id: 'pages.dashboard.granularity.day', defaultMessage: '天' },
  week: { id: 'pages.dashboard.granularity.week', defaultMessage: '周' },
});

function toArgs(values: FilterValues, admin: boolean): UsageDataArgs {
  const args: UsageDataArgs = {
    admin,
    start_timestamp: toUnixSeconds(values.range[0].valueOf()),
    end_timestamp: toUnixSeconds(values.range[1].valueOf()),
  };
  if (admin) args.username = values.username.trim();
  return args;
}

export default DashboardPage;
