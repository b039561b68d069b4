import { useState } from 'react';
import { App, Badge, Button, Card, Popconfirm, Space, Table, Tabs, Tooltip, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { deadLetterServices, type DeadLetterService, type DeadLetterView } from '@aigw/contracts';
import { useText, type Text } from '../../../app/use-text';
import { confirmAction } from '../../../components/confirm-action';
import { useLeaveEmptyPage, useTablePaging } from '../../../components/use-table-paging';
import { formatTimestamp } from '../../logs/time';
import { useDeadLettersQuery, useDeleteDeadLetterMutation, useReplayAllDeadLettersMutation, useReplayDeadLetterMutation } from './dead-letters-api';

function serviceLabels(t: Text): Record<DeadLetterService, string> {
  return {
    identity: t('pages.settings.operation.deadLetters.service.identity', '身份'),
    billing: t('pages.settings.operation.deadLetters.service.billing', '计费'),
    channels: t('pages.settings.operation.deadLetters.service.channels', '渠道'),
    relay: t('pages.settings.operation.deadLetters.service.relay', '转发'),
    notifier: t('pages.settings.operation.deadLetters.service.notifier', '通知'),
  };
}

/** A service's tab: its name and how many dead letters it holds (the first page's query, shared with the table). */
function ServiceTab({ service, label, pageSize }: { service: DeadLetterService; label: string; pageSize: number }) {
  const { data } = useDeadLettersQuery({ service, page: 1, pageSize });
  const total = data?.total ?? 0;
  return (
    <Space size={4}>
      {label}
      <Badge count={total} showZero color={total ? 'red' : 'green'} />
    </Space>
  );
}

/**
 * Events a service's consumer gave up on after its last delivery, one tab per service (each keeps
 * its own). Root fixes the cause, then replays one or all: the event goes to the consumer that
 * failed, no other; a replay that fails again keeps it with the new error.
 */
export function DeadLettersCard() {
  const t = useText();
  const { message } = App.useApp();
  const labels = serviceLabels(t);
  const [service, setService] = useState<DeadLetterService>(deadLetterServices[0]);
  const paging = useTablePaging();
  const { page, setPage, pageSize, pagination } = paging;
  const { data, isFetching, refetch } = useDeadLettersQuery({ service, page, pageSize });
  useLeaveEmptyPage(paging, data);
  const [replay] = useReplayDeadLetterMutation();
  const [replayAll, { isLoading: replayingAll }] = useReplayAllDeadLettersMutation();
  const [remove] = useDeleteDeadLetterMutation();
  const [busy, setBusy] = useState<number | null>(null);

  const replayOne = async (letter: DeadLetterView) => {
    setBusy(letter.id);
    try {
      await replay({ service, id: letter.id }).unwrap();
      void message.success(t('pages.settings.operation.deadLetters.replayed', '已重放，消费者已处理该事件'));
    } catch {
      // the base query has shown why it failed again
    } finally {
      setBusy(null);
    }
  };

  const replayEvery = async () => {
    const outcome = await replayAll(service)
      .unwrap()
      .catch(() => null);
    if (outcome)
      void message.info(
        t('pages.settings.operation.deadLetters.replayedAll', '已重放 {replayed} 条，{failed} 条再次失败', {
          replayed: outcome.replayed,
          failed: outcome.failed,
        }),
      );
  };

  const deleteOne = async (letter: DeadLetterView) => {
    const done = await remove({ service, id: letter.id })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (done) void message.success(t('pages.settings.operation.deadLetters.deleted', '已删除'));
  };

  const columns = [
    { title: 'ID', dataIndex: 'id', width: 64 },
    {
      title: t('pages.settings.operation.deadLetters.column.subject', '事件'),
      dataIndex: 'subject',
      render: (subject: string, letter: DeadLetterView) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text code>{subject}</Typography.Text>
          <Typography.Text type="secondary">{letter.event_id}</Typography.Text>
        </Space>
      ),
    },
    {
      title: t('pages.settings.operation.deadLetters.column.consumer', '消费者'),
      dataIndex: 'consumer',
      render: (consumer: string, letter: DeadLetterView) => <Tooltip title={letter.pattern}>{consumer}</Tooltip>,
    },
    {
      title: t('pages.settings.operation.deadLetters.column.error', '最后的错误'),
      dataIndex: 'error',
      render: (error: string) => (
        <Typography.Text type="danger" style={{ wordBreak: 'break-word' }}>
          {error}
        </Typography.Text>
      ),
    },
    { title: t('pages.settings.operation.deadLetters.column.attempts', '尝试次数'), dataIndex: 'attempts' },
    {
      title: t('pages.settings.operation.deadLetters.column.publishedAt', '发布时间'),
      dataIndex: 'published_at',
      render: (value: number) => formatTimestamp(value),
    },
    {
      title: t('pages.settings.operation.deadLetters.column.failedAt', '最后失败时间'),
      dataIndex: 'failed_at',
      render: (value: number) => formatTimestamp(value),
    },
    {
      title: t('pages.settings.operation.deadLetters.column.actions', '操作'),
      key: 'actions',
      render: (_: unknown, letter: DeadLetterView) => (
        <Space wrap>
          <Button size="small" loading={busy === letter.id} onClick={() => void replayOne(letter)}>
            {t('pages.settings.operation.deadLetters.replay', '重放')}
          </Button>
          <Popconfirm
            title={t('pages.settings.operation.deadLetters.delete.confirm', '删除后该事件不会再被处理，确定删除？')}
            okText={t('pages.settings.operation.deadLetters.confirm.ok', '确定')}
            cancelText={t('pages.settings.operation.deadLetters.confirm.cancel', '取消')}
            onConfirm={confirmAction(() => deleteOne(letter))}
          >
            <Button size="small" danger>
              {t('pages.settings.operation.deadLetters.delete', '删除')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <Card
      title={t('pages.settings.operation.deadLetters.title', '死信事件')}
      extra={
        <Space wrap>
          <Button icon={<ReloadOutlined />} loading={isFetching} onClick={() => void refetch()}>
            {t('pages.settings.operation.deadLetters.refresh', '刷新')}
          </Button>
          <Popconfirm
            title={t('pages.settings.operation.deadLetters.replayAll.confirm', '把此服务的所有死信重新交给各自的消费者处理？')}
            okText={t('pages.settings.operation.deadLetters.confirm.ok', '确定')}
            cancelText={t('pages.settings.operation.deadLetters.confirm.cancel', '取消')}
            onConfirm={confirmAction(replayEvery)}
            disabled={!data?.total}
          >
            <Button type="primary" loading={replayingAll} disabled={!data?.total}>
              {t('pages.settings.operation.deadLetters.replayAll', '全部重放')}
            </Button>
          </Popconfirm>
        </Space>
      }
      style={{ marginBottom: 16 }}
    >
      <Typography.Paragraph type="secondary">
        {t(
          'pages.settings.operation.deadLetters.help',
          '消费者在最后一次投递仍处理失败的事件保存在所属服务的数据库中。排除原因后可重放：事件只交给当初失败的消费者处理，成功后删除。',
        )}
      </Typography.Paragraph>
      <Tabs
        activeKey={service}
        onChange={(key) => {
          setService(key as DeadLetterService);
          setPage(1);
        }}
        items={deadLetterServices.map((key) => ({ key, label: <ServiceTab service={key} label={labels[key]} pageSize={pageSize} /> }))}
      />
      <Table<DeadLetterView>
        rowKey="id"
        size="small"
        loading={isFetching && !data}
        dataSource={data?.items ?? []}
        columns={columns}
        scroll={{ x: 'max-content' }}
        pagination={pagination(data?.total ?? 0)}
        expandable={{
          expandedRowRender: (letter) =>
            letter.payload === null ? (
              <Typography.Text type="secondary">
                {t('pages.settings.operation.deadLetters.payloadHidden', '此事件的内容只属于其用户（例如邮件验证码），不予显示')}
              </Typography.Text>
            ) : (
              <Typography.Paragraph copyable={{ text: letter.payload }} style={{ marginBottom: 0 }}>
                <pre style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>{prettyJson(letter.payload)}</pre>
              </Typography.Paragraph>
            ),
        }}
      />
    </Card>
  );
}

/** The payload indented when it is JSON; an undecodable message's body as it came. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
