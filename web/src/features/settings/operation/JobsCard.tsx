import { Button, Card, Table, Tag, Tooltip, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { JobName, type JobOutcome, type JobView } from '@aigw/contracts';
import { useText } from '../../../app/use-text';
import { formatTimestamp } from '../../logs/time';
import { useJobsQuery } from './jobs-api';

const outcomeColors: Record<JobOutcome, string> = { ok: 'success', failed: 'error', skipped: 'default' };

/** Background jobs (read-only): each job's last run, its outcome and what it did. */
export function JobsCard() {
  const t = useText();
  const { data, isFetching, refetch } = useJobsQuery();

  const jobLabels: Record<string, string> = {
    [JobName.ChannelsTestAll]: t('pages.settings.operation.jobs.name.testAll', '测试所有渠道'),
    [JobName.ChannelsBalanceAll]: t('pages.settings.operation.jobs.name.balanceAll', '更新所有渠道余额'),
    [JobName.BillingLogRetention]: t('pages.settings.operation.jobs.name.logRetention', '清理过期日志'),
    [JobName.IdentitySessionsSweep]: t('pages.settings.operation.jobs.name.sessionsSweep', '清理过期会话'),
    [JobName.RelayHoldsSweep]: t('pages.settings.operation.jobs.name.holdsSweep', '释放滞留的额度预留'),
  };
  const outcomeLabels: Record<JobOutcome, string> = {
    ok: t('pages.settings.operation.jobs.outcome.ok', '成功'),
    failed: t('pages.settings.operation.jobs.outcome.failed', '失败'),
    skipped: t('pages.settings.operation.jobs.outcome.skipped', '已跳过'),
  };
  const never = t('pages.settings.operation.jobs.never', '尚未运行');

  return (
    <Card
      title={t('pages.settings.operation.jobs.title', '后台任务')}
      extra={<Button icon={<ReloadOutlined />} loading={isFetching} onClick={() => void refetch()}>{t('pages.settings.operation.jobs.refresh', '刷新')}</Button>}
      style={{ marginBottom: 16 }}
    >
      <Table<JobView>
        rowKey="name"
        size="small"
        pagination={false}
        loading={isFetching && !data}
        dataSource={data ?? []}
        scroll={{ x: 'max-content' }}
        columns={[
          {
            title: t('pages.settings.operation.jobs.column.job', '任务'),
            dataIndex: 'name',
            render: (name: string, job) => (
              <Tooltip title={`${job.description} (${job.schedule})`}>
                {jobLabels[name] ?? name} <Typography.Text type="secondary" code>{name}</Typography.Text>
              </Tooltip>
            ),
          },
          {
            title: t('pages.settings.operation.jobs.column.lastRun', '上次运行'),
            render: (_, job) => (job.last_run ? formatTimestamp(job.last_run.started_at) : never),
          },
          {
            title: t('pages.settings.operation.jobs.column.duration', '耗时'),
            render: (_, job) => (job.last_run ? t('pages.settings.operation.jobs.durationMs', '{ms} 毫秒', { ms: job.last_run.duration_ms }) : ''),
          },
          {
            title: t('pages.settings.operation.jobs.column.outcome', '结果'),
            render: (_, job) => (job.last_run ? <Tag color={outcomeColors[job.last_run.outcome]}>{outcomeLabels[job.last_run.outcome]}</Tag> : ''),
          },
          {
            title: t('pages.settings.operation.jobs.column.summary', '摘要'),
            render: (_, job) => job.last_run?.summary ?? '',
          },
          {
            title: t('pages.settings.operation.jobs.column.lastSkipped', '上次因重叠跳过'),
            render: (_, job) => (job.last_skipped ? formatTimestamp(job.last_skipped.started_at) : ''),
          },
        ]}
      />
    </Card>
  );
}
