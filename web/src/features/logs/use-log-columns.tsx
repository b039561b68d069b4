import { Button, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { LogType, type LogView } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { LabelTag } from '../../components/LabelTag';
import { logTypeLabel } from './log-labels';
import { durationColor, firstTokenColor, firstTokenSeconds, parseOther, retryPath } from './log-other';
import { formatTimestamp } from './time';

/** Usage figures (duration, tokens, cost) belong to consume rows; other types leave them blank. */
const isConsume = (row: LogView) => row.type === LogType.Consume;

/** The log table's columns; admins also get channel, user name (opening the user popup) and retry. */
export function useLogColumns(admin: boolean, onOpenUser: (userId: number) => void): ColumnsType<LogView> {
  const formatQuota = useFormatQuota();
  const t = useText();
  const seconds = (value: number) => t('pages.logs.seconds', '{value} s', { value });

  const columns: ColumnsType<LogView> = [
    { title: t('pages.logs.column.time', '时间'), dataIndex: 'created_at', key: 'time', render: (value: number) => formatTimestamp(value) },
  ];
  if (admin) {
    columns.push({
      title: t('pages.logs.column.channel', '渠道'),
      dataIndex: 'channel',
      key: 'channel',
      render: (channel: number, row) => (isConsume(row) && channel ? <Tag color="blue">{channel}</Tag> : null),
    });
    columns.push({
      title: t('pages.logs.column.user', '用户'),
      dataIndex: 'username',
      key: 'user',
      render: (username: string, row) =>
        username ? (
          <Button type="link" size="small" style={{ padding: 0 }} onClick={() => onOpenUser(row.user_id)}>
            {username}
          </Button>
        ) : null,
    });
  }
  columns.push(
    {
      title: t('pages.logs.column.token', '令牌'),
      dataIndex: 'token_name',
      key: 'token',
      render: (name: string) => (name ? <Tag color="geekblue">{name}</Tag> : null),
    },
    {
      title: t('pages.logs.column.group', '分组'),
      dataIndex: 'group',
      key: 'group',
      render: (group: string) => (group ? <Tag>{group}</Tag> : null),
    },
    {
      title: t('pages.logs.column.type', '类型'),
      dataIndex: 'type',
      key: 'type',
      render: (type: number) => <LabelTag label={logTypeLabel(type)} />,
    },
    {
      title: t('pages.logs.column.model', '模型'),
      dataIndex: 'model_name',
      key: 'model',
      render: (model: string) => (model ? <Tag color="processing">{model}</Tag> : null),
    },
    {
      title: t('pages.logs.column.useTime', '用时/首字'),
      key: 'useTime',
      render: (_: unknown, row) => {
        if (!isConsume(row)) return null;
        const other = parseOther(row.other);
        const frt = firstTokenSeconds(other);
        return (
          <Space size={4} wrap>
            <Tag color={durationColor(row.use_time)}>{seconds(row.use_time)}</Tag>
            {frt !== null && (
              <Tooltip title={t('pages.logs.firstToken', '首字')}>
                <Tag color={firstTokenColor(frt)}>{seconds(frt)}</Tag>
              </Tooltip>
            )}
            {row.is_stream ? <Tag color="blue">{t('pages.logs.stream', '流')}</Tag> : <Tag color="purple">{t('pages.logs.nonStream', '非流')}</Tag>}
            {other.ws === true && <Tag color="magenta">{t('pages.logs.realtime', '实时')}</Tag>}
          </Space>
        );
      },
    },
    {
      title: t('pages.logs.column.prompt', '提示'),
      dataIndex: 'prompt_tokens',
      key: 'prompt',
      render: (value: number, row) => (isConsume(row) ? value : null),
    },
    {
      title: t('pages.logs.column.completion', '补全'),
      dataIndex: 'completion_tokens',
      key: 'completion',
      render: (value: number, row) => (isConsume(row) ? value : null),
    },
    {
      title: t('pages.logs.column.quota', '花费'),
      dataIndex: 'quota',
      key: 'quota',
      render: (quota: number, row) => (isConsume(row) ? formatQuota(quota, 6) : null),
    },
  );
  if (admin) {
    columns.push({
      title: t('pages.logs.column.retry', '重试'),
      key: 'retry',
      render: (_: unknown, row) => retryPath(parseOther(row.other)),
    });
  }
  columns.push({
    title: t('pages.logs.column.detail', '详情'),
    dataIndex: 'content',
    key: 'detail',
    render: (content: string) => (
      <Typography.Paragraph ellipsis={{ rows: 2, tooltip: content }} style={{ marginBottom: 0, maxWidth: 240 }}>
        {content}
      </Typography.Paragraph>
    ),
  });
  return columns;
}
