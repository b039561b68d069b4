import { Card, Col, Row, Table, theme } from 'antd';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useFormatQuota } from '../../app/hooks';
import { useText } from '../../app/use-text';
import type { Bucket, ModelShare, UsageSummary } from './buckets';

/** Series colours, in the order of models by consumption; readable on light and dark grounds. */
const PALETTE = ['#1677ff', '#52c41a', '#fa8c16', '#eb2f96', '#722ed1', '#13c2c2', '#fadb14', '#f5222d', '#2f54eb', '#a0d911', '#8c8c8c'];
const colorOf = (index: number) => PALETTE[index % PALETTE.length]!;

const CHART_HEIGHT = 320;
/** Used until the container is measured (and in environments that never measure). */
const INITIAL_SIZE = { width: 800, height: CHART_HEIGHT };

/** Consumption per model over time (stacked bars), calls per model (lines), and each model's share (pie). */
export function UsageCharts({ summary }: { summary: UsageSummary }) {
  const formatQuota = useFormatQuota();
  const { token } = theme.useToken();
  const t = useText();
  const { buckets, models } = summary;

  // Axes, grid and tooltip follow the antd theme, so the charts read in dark mode too.
  const axis = { stroke: token.colorTextSecondary, tick: { fill: token.colorTextSecondary, fontSize: 12 } };
  const grid = <CartesianGrid stroke={token.colorBorderSecondary} strokeDasharray="3 3" />;
  const tooltipStyle = {
    contentStyle: { background: token.colorBgElevated, borderColor: token.colorBorder, color: token.colorText },
    labelStyle: { color: token.colorText },
    itemStyle: { color: token.colorText },
  };
  const legendStyle = { color: token.colorText };
  const quotaText = (value: unknown) => formatQuota(Number(value), 4);

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('pages.dashboard.chart.consumption', '消耗分布')}>
          <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={INITIAL_SIZE}>
            <BarChart data={buckets}>
              {grid}
              <XAxis dataKey="label" {...axis} />
              <YAxis {...axis} width={80} tickFormatter={(value: number) => formatQuota(value)} />
              <Tooltip {...tooltipStyle} formatter={quotaText} />
              <Legend wrapperStyle={legendStyle} />
              {models.map(({ model }, index) => (
                <Bar key={model} name={model} stackId="quota" fill={colorOf(index)} dataKey={(bucket: Bucket) => bucket.quota[model] ?? 0} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('pages.dashboard.chart.calls', '调用次数分布')}>
          <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={INITIAL_SIZE}>
            <LineChart data={buckets}>
              {grid}
              <XAxis dataKey="label" {...axis} />
              <YAxis {...axis} allowDecimals={false} />
              <Tooltip {...tooltipStyle} />
              <Legend wrapperStyle={legendStyle} />
              {models.map(({ model }, index) => (
                <Line key={model} name={model} type="monotone" stroke={colorOf(index)} dot={false} dataKey={(bucket: Bucket) => bucket.count[model] ?? 0} />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('pages.dashboard.chart.share', '模型消耗占比')}>
          <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={INITIAL_SIZE}>
            <PieChart>
              <Tooltip {...tooltipStyle} formatter={quotaText} />
              <Legend wrapperStyle={legendStyle} />
              <Pie data={models} dataKey="quota" nameKey="model" innerRadius="45%" outerRadius="75%" stroke={token.colorBgContainer}>
                {models.map(({ model }, index) => (
                  <Cell key={model} fill={colorOf(index)} />
                ))}
              </Pie>
            </PieChart>
          </ResponsiveContainer>
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('pages.dashboard.models.title', '模型统计')}>
          <Table<ModelShare>
            rowKey="model"
            size="small"
            pagination={false}
            scroll={{ y: CHART_HEIGHT - 40 }}
            dataSource={models}
            columns={[
              { title: t('pages.dashboard.models.model', '模型'), dataIndex: 'model' },
              { title: t('pages.dashboard.models.quota', '消耗额度'), dataIndex: 'quota', render: (quota: number) => formatQuota(quota, 4) },
              { title: t('pages.dashboard.models.tokens', 'Tokens'), dataIndex: 'tokens' },
              { title: t('pages.dashboard.models.count', '调用次数'), dataIndex: 'count' },
            ]}
          />
        </Card>
      </Col>
    </Row>
  );
}
