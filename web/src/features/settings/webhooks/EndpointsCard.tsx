import { useState } from 'react';
import { App, Button, Card, Popconfirm, Space, Switch, Table, Tag, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import type { WebhookEndpoint, WebhookWithSecret } from '@aigw/contracts';
import type { ApiError } from '../../../api/base-query';
import { useText } from '../../../app/use-text';
import { useDeleteWebhookMutation, useRotateWebhookSecretMutation, useTestWebhookMutation, useUpdateWebhookMutation, useWebhooksQuery } from './api';
import { EndpointDialog } from './EndpointDialog';
import { SecretDialog } from './SecretDialog';
import { confirmAction } from '../../../components/confirm-action';

/** Which dialog is open: the editor (a new endpoint or an existing one), or the secret just made. */
type Dialog = { kind: 'edit'; endpoint?: WebhookEndpoint } | { kind: 'secret'; endpoint: WebhookWithSecret } | null;

/** Root's webhook endpoints: the list, add and edit, enable, test ping, secret rotation and delete. */
export function EndpointsCard() {
  const t = useText();
  const { message } = App.useApp();
  const { data: endpoints = [], isFetching } = useWebhooksQuery();
  const [updateWebhook] = useUpdateWebhookMutation();
  const [deleteWebhook] = useDeleteWebhookMutation();
  const [rotateSecret] = useRotateWebhookSecretMutation();
  const [testWebhook] = useTestWebhookMutation();
  const [testing, setTesting] = useState<number | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);

  const setEnabled = async (endpoint: WebhookEndpoint, enabled: boolean) => {
    try {
      await updateWebhook({ id: endpoint.id, enabled }).unwrap();
    } catch (error) {
      void message.error((error as ApiError).message);
    }
  };

  const sendTest = async (endpoint: WebhookEndpoint) => {
    setTesting(endpoint.id);
    try {
      const result = await testWebhook(endpoint.id).unwrap();
      if (result.ok) {
        void message.success(
          t('pages.settings.webhooks.test.ok', '测试请求已送达（HTTP {status}，{ms} 毫秒）', { status: result.status_code, ms: result.duration_ms }),
        );
      } else {
        void message.error(t('pages.settings.webhooks.test.failed', '测试请求失败：{error}', { error: result.error }));
      }
    } catch {
      // the base query has shown why
    } finally {
      setTesting(null);
    }
  };

  const rotate = async (endpoint: WebhookEndpoint) => {
    const rotated = await rotateSecret(endpoint.id)
      .unwrap()
      .catch(() => null);
    if (rotated) setDialog({ kind: 'secret', endpoint: rotated });
  };

  const remove = async (endpoint: WebhookEndpoint) => {
    const done = await deleteWebhook(endpoint.id)
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (done) void message.success(t('pages.settings.webhooks.deleted', '端点已删除'));
  };

  const columns = [
    { title: 'ID', dataIndex: 'id', width: 64 },
    {
      title: t('pages.settings.webhooks.column.url', '回调地址'),
      dataIndex: 'url',
      render: (url: string, endpoint: WebhookEndpoint) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text copyable={{ text: url }} style={{ wordBreak: 'break-all' }}>
            {url}
          </Typography.Text>
          {endpoint.description && <Typography.Text type="secondary">{endpoint.description}</Typography.Text>}
        </Space>
      ),
    },
    {
      title: t('pages.settings.webhooks.column.subjects', '订阅事件'),
      dataIndex: 'subjects',
      render: (subjects: string[]) => (
        <Space size={[0, 4]} wrap>
          {subjects.map((subject) => (
            <Tag key={subject}>{subject}</Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('pages.settings.webhooks.column.enabled', '启用'),
      dataIndex: 'enabled',
      width: 80,
      render: (enabled: boolean, endpoint: WebhookEndpoint) => (
        <Switch
          checked={enabled}
          aria-label={t('pages.settings.webhooks.enable', '启用 {url}', { url: endpoint.url })}
          onChange={(checked) => void setEnabled(endpoint, checked)}
        />
      ),
    },
    {
      title: t('pages.settings.webhooks.column.actions', '操作'),
      key: 'actions',
      render: (_: unknown, endpoint: WebhookEndpoint) => (
        <Space wrap>
          <Button size="small" onClick={() => setDialog({ kind: 'edit', endpoint })}>
            {t('pages.settings.webhooks.action.edit', '编辑')}
          </Button>
          <Button size="small" loading={testing === endpoint.id} onClick={() => void sendTest(endpoint)}>
            {t('pages.settings.webhooks.action.test', '测试')}
          </Button>
          <Popconfirm
            title={t('pages.settings.webhooks.rotate.confirm', '生成新的签名密钥？旧密钥立即失效。')}
            okText={t('pages.settings.webhooks.confirm.ok', '确定')}
            cancelText={t('pages.settings.webhooks.confirm.cancel', '取消')}
            onConfirm={confirmAction(() => rotate(endpoint))}
          >
            <Button size="small">{t('pages.settings.webhooks.action.rotate', '更换密钥')}</Button>
          </Popconfirm>
          <Popconfirm
            title={t('pages.settings.webhooks.delete.confirm', '确定删除此端点？尚未送达的投递将不再发送。')}
            okText={t('pages.settings.webhooks.confirm.ok', '确定')}
            cancelText={t('pages.settings.webhooks.confirm.cancel', '取消')}
            onConfirm={confirmAction(() => remove(endpoint))}
          >
            <Button size="small" danger>
              {t('pages.settings.webhooks.action.delete', '删除')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <Card
      title={t('pages.settings.webhooks.endpoints.title', 'Webhook 端点')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setDialog({ kind: 'edit' })}>
          {t('pages.settings.webhooks.action.add', '添加端点')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">
        {t(
          'pages.settings.webhooks.endpoints.help',
          '匹配的事件会以带签名的 HTTP POST 发送到这些地址，失败时按指数退避重试。事件与签名说明见 docs/events.md。',
        )}
      </Typography.Paragraph>
      <Table<WebhookEndpoint>
        rowKey="id"
        size="middle"
        loading={isFetching}
        dataSource={endpoints}
        columns={columns}
        pagination={false}
        scroll={{ x: 'max-content' }}
      />
      {dialog?.kind === 'edit' && (
        <EndpointDialog endpoint={dialog.endpoint} onClose={() => setDialog(null)} onCreated={(created) => setDialog({ kind: 'secret', endpoint: created })} />
      )}
      {dialog?.kind === 'secret' && <SecretDialog url={dialog.endpoint.url} secret={dialog.endpoint.secret} onClose={() => setDialog(null)} />}
    </Card>
  );
}
