import { Button, Card, Table, Tag, Tooltip, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { JobName, type JobOutcome, type JobView } from '@aigw/contracts';
import { useText } from '../../../app/use-text';
import { formatTimestamp } from '../../logs/time';
import { useJobsQuery } from './jobs-api';

const outcomeColors: Record<JobOutcome, string> = { ok: 'success', failed: 'error', skipped: 'default' };

/** Scheduled: the job store holds it; missing: wanted but lost (it is re-created); off: not scheduled. */
type SchedulePresence = 'scheduled' | 'missing' | 'off';
const presenceOf = ({ schedule_status: status }: JobView): SchedulePresence => (status.registered ? 'scheduled' : status.wanted ? 'missing' : 'off');
const presenceColors: Record<SchedulePresence, string> = { scheduled: 'success', missing: 'error', off: 'default' };

/** Background jobs (read-only): each job's schedule and next run, its last run, the outcome and what it did. */
export function JobsCard() {
  const t = useText();
  const { data, isFetching, refetch } = useJobsQuery();

  const jobLabels: Record<string, string> = {
    [JobName.ChannelsTestAll]: t('pages.settings.operation.jobs.name.testAll', '测试所有渠道'),
    [JobName.ChannelsBalanceAll]: t('pages.settings.operation.jobs.name.balanceAll', '更新所有渠道余额'),
    [JobName.BillingLogRetention]: t('pages.settings.operation.jobs.name.logRetention', '清理过期日志'),
    [JobName.IdentitySessionsSweep]: t('pages.settings.operation.jobs.name.sessionsSweep', '清理过期会话'),
    [JobName.RelayHoldsSweep]: t('pages.settings.operation.jobs.name.holdsSweep', '释放滞留的额度预留'),
    [JobName.RelayTasksPoll]: t('pages.settings.operation.jobs.name.tasksPoll', '跟进绘图与音乐任务'),
    [JobName.BillingPendingSweep]: t('pages.settings.operation.jobs.name.pendingSweep', '记录中断请求的用量'),
  };
  const outcomeLabels: Record<JobOutcome, string> = {
    ok: t('pages.settings.operation.jobs.outcome.ok', '成功'),
    failed: t('pages.settings.operation.jobs.outcome.failed', '失败'),
    skipped: t('pages.settings.operation.jobs.outcome.skipped', '已跳过'),
  };
  const never = t('pages.settings.operation.jobs.never', '尚未运行');
  const presenceLabels: Record<SchedulePresence, string> = {
    scheduled: t('pages.settings.operation.jobs.presence.scheduled', '已计划'),
    missing: t('pages.settings.operation.jobs.presence.missing', '计划缺失'),
    off: t('pages.settings.operation.jobs.presence.off', '未计划'),
  };
  const presenceHints: Record<SchedulePresence, string> = {
    scheduled: t('pages.settings.operation.jobs.presence.scheduledHint', '任务存储中有此计划'),
    missing: t('pages.settings.operation.jobs.presence.missingHint', '任务存储（Redis）中没有此计划，可能是 Redis 重启后丢失了数据；服务会在一分钟内自动重建'),
    off: t('pages.settings.operation.jobs.presence.offHint', '此任务当前没有定时计划（例如频率设为 0）'),
  };

  return (
    <Card
      title={t('pages.settings.operation.jobs.title', '后台任务')}
      extra={
        <Button icon={<ReloadOutlined />} loading={isFetching} onClick={() => void refetch()}>
          {t('pages.settings.operation.jobs.refresh', '刷新')}
        </Button>
      }
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
                {jobLabels[name] ?? name}{' '}
                <Typography.Text type="secondary" code>
                  {name}
                </Typography.Text>
              </Tooltip>
            ),
          },
          {
            title: t('pages.settings.operation.jobs.column.schedule', '计划'),
            render: (_, job) => {
              const presence = presenceOf(job);
              return (
                <Tooltip title={presenceHints[presence]}>
                  <Tag color={presenceColors[presence]}>{presenceLabels[presence]}</Tag>
                </Tooltip>
              );
            },
          },
          {
            title: t('pages.settings.operation.jobs.column.nextRun', '下次运行'),
            render: (_, job) => (job.schedule_status.next_run_at === null ? '' : formatTimestamp(job.schedule_status.next_run_at)),
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
