import { useState } from 'react';
import { Alert, Card, Flex, Space, Table, Tag } from 'antd';
import { LogType, type LogView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { useListFilters } from '../../components/use-list-filters';
import { useLogStatQuery, useLogsQuery } from './api';
import { initialFilterValues, LogFilters, toFilterParams, type LogFilterValues } from './LogFilters';
import { LogDetails } from './LogDetails';
import { defaultLogWindow } from './time';
import { UserInfoModal } from './UserInfoModal';
import { useLogColumns } from './use-log-columns';

/** /log: usage and account logs with totals; admins see everyone's (/api/log/), users their own. */
export function LogsPage() {
  const formatQuota = useFormatQuota();
  // The default window: today's 00:00 to an hour ahead.
  const { isAdmin, initialValues, filters, paging, search: applyFilters } = useListFilters(() => initialFilterValues(defaultLogWindow()), toFilterParams);
  const [userId, setUserId] = useState<number | null>(null);
  const t = useText();

  const list = useLogsQuery({ admin: isAdmin, p: paging.page, page_size: paging.pageSize, ...filters });
  const stat = useLogStatQuery({ admin: isAdmin, ...filters });
  const columns = useLogColumns(isAdmin, setUserId);

  const search = (values: LogFilterValues) => {
    // Same arguments: ask again, the user wants fresh figures.
    if (applyFilters(values)) {
      void list.refetch();
      void stat.refetch();
    }
  };

  const totals = stat.data;
  return (
    <Card title={t('pages.logs.title', '日志')}>
      <Flex vertical gap={16}>
        <Space wrap aria-label={t('pages.logs.totals', '统计')}>
          <Tag color="blue">{t('pages.logs.stat.quota', '消耗额度：{quota}', { quota: totals ? formatQuota(totals.quota) : '-' })}</Tag>
          <Tag color="pink">{t('pages.logs.stat.rpm', 'RPM：{rpm}', { rpm: totals?.rpm ?? '-' })}</Tag>
          <Tag color="gold">{t('pages.logs.stat.tpm', 'TPM：{tpm}', { tpm: totals?.tpm ?? '-' })}</Tag>
        </Space>
        <Alert type="info" showIcon title={t('pages.logs.hint.lastDays', '时间视图仅显示最近 3 天的日志。')} />
        <LogFilters admin={isAdmin} initialValues={initialValues} searching={list.isFetching} onSearch={search} />
        <Table<LogView>
          rowKey="id"
          size="small"
          scroll={{ x: 'max-content' }}
          columns={columns}
          dataSource={list.data?.items ?? []}
          loading={list.isFetching}
          expandable={{
            expandedRowRender: (row) => <LogDetails row={row} admin={isAdmin} />,
            rowExpandable: (row) => row.type === LogType.Consume || row.other !== '',
          }}
          pagination={paging.pagination(list.data?.total ?? 0)}
        />
      </Flex>
      {isAdmin && <UserInfoModal userId={userId} onClose={() => setUserId(null)} />}
    </Card>
  );
}

export default LogsPage;
