import { App, Button, Modal, Popconfirm, Space, Table, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { ChannelStatus, type ChannelKeyStatus, type ChannelView } from '@aigw/contracts';
import { useChannelKeysQuery, useManageChannelKeysMutation, useTestChannelMutation } from './api';
import { useShowFailure } from './use-failure';
import { confirmAction } from '../../components/confirm-action';
import { formatTimestamp } from '../logs/time';
import { StatusTag } from './cells';

type Action = 'enable_key' | 'disable_key' | 'enable_all_keys' | 'delete_disabled_keys';

/**
 * The keys of a channel with many keys (docs/architecture.md section 5.8): each one masked, its
 * state and why it is off; a key is tested, enabled or disabled on its own (never the last live
 * one), all are enabled at once, or the disabled ones removed.
 */
export function KeysModal({ channel, onClose }: { channel: Pick<ChannelView, 'id' | 'name'>; onClose(): void }) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message } = App.useApp();
  const showFailure = useShowFailure();
  const { data, isFetching, error } = useChannelKeysQuery(channel.id);
  const [manage, { isLoading: managing }] = useManageChannelKeysMutation();
  const [test] = useTestChannelMutation();

  const run = async (action: Action, keyIndex?: number) => {
    try {
      await manage({ channel_id: channel.id, action, ...(keyIndex !== undefined ? { key_index: keyIndex } : {}) }).unwrap();
      void message.success(t({ id: 'pages.channels.done', defaultMessage: '操作成功完成！' }));
    } catch (failure) {
      showFailure(failure);
    }
  };

  const testKey = async (keyIndex: number) => {
    try {
      const { time } = await test({ id: channel.id, keyIndex }).unwrap();
      void message.success(
        t({ id: 'pages.channels.keys.testDone', defaultMessage: '密钥 #{index} 测试成功，耗时 {time} 秒。' }, { index: keyIndex, time: time.toFixed(2) }),
      );
    } catch (failure) {
      showFailure(failure);
    }
  };

  const live = data?.live ?? 0;
  return (
    <Modal
      open
      width={860}
      title={t({ id: 'pages.channels.keys.title', defaultMessage: '渠道 {name} 的密钥' }, { name: channel.name })}
      onCancel={onClose}
      footer={null}
    >
      {error ? (
        <Typography.Text type="danger">{t({ id: 'pages.channels.keys.loadFailed', defaultMessage: '密钥列表加载失败' })}</Typography.Text>
      ) : (
        <>
          <Space style={{ marginBottom: 12 }} wrap>
            <Typography.Text>
              {t(
                { id: 'pages.channels.keys.summary', defaultMessage: '{live} / {size} 个密钥可用，{mode}' },
                {
                  live,
                  size: data?.size ?? 0,
                  mode:
                    data?.mode === 'polling'
                      ? t({ id: 'pages.channels.keys.mode.polling', defaultMessage: '轮询' })
                      : t({ id: 'pages.channels.keys.mode.random', defaultMessage: '随机' }),
                },
              )}
            </Typography.Text>
            <Button size="small" disabled={!data || data.live === data.size} loading={managing} onClick={() => void run('enable_all_keys')}>
              {t({ id: 'pages.channels.keys.enableAll', defaultMessage: '启用全部密钥' })}
            </Button>
            <Popconfirm
              title={t({ id: 'pages.channels.keys.deleteDisabled.confirm', defaultMessage: '确定删除所有已禁用的密钥？' })}
              okButtonProps={{ danger: true }}
              onConfirm={confirmAction(() => run('delete_disabled_keys'))}
            >
              <Button size="small" danger disabled={!data || data.live === data.size}>
                {t({ id: 'pages.channels.keys.deleteDisabled', defaultMessage: '删除已禁用的密钥' })}
              </Button>
            </Popconfirm>
          </Space>
          <Table<ChannelKeyStatus>
            rowKey="index"
            size="small"
            loading={isFetching}
            dataSource={data?.keys ?? []}
            pagination={{ pageSize: 10, hideOnSinglePage: true }}
            columns={[
              { title: '#', dataIndex: 'index', width: 56 },
              { title: t({ id: 'pages.channels.keys.key', defaultMessage: '密钥' }), dataIndex: 'masked', render: (masked: string) => <code>{masked}</code> },
              { title: t({ id: 'pages.channels.keys.status', defaultMessage: '状态' }), render: (_value, key) => <StatusTag status={key.status} /> },
              {
                title: t({ id: 'pages.channels.keys.reason', defaultMessage: '禁用原因' }),
                render: (_value, key) =>
                  key.status === ChannelStatus.Enabled ? (
                    '-'
                  ) : (
                    <Typography.Text type="secondary" ellipsis={{ tooltip: key.reason }} style={{ maxWidth: 300 }}>
                      {key.time > 0 ? `${formatTimestamp(key.time)} ` : ''}
                      {key.reason || '-'}
                    </Typography.Text>
                  ),
              },
              {
                title: t({ id: 'pages.channels.keys.actions', defaultMessage: '操作' }),
                width: 190,
                render: (_value, key) => (
                  <Space size={4}>
                    <Button size="small" onClick={() => void testKey(key.index)}>
                      {t({ id: 'pages.channels.action.test', defaultMessage: '测试' })}
                    </Button>
                    {key.status === ChannelStatus.Enabled ? (
                      <Button size="small" disabled={live <= 1} onClick={() => void run('disable_key', key.index)}>
                        {t({ id: 'pages.channels.action.disable', defaultMessage: '禁用' })}
                      </Button>
                    ) : (
                      <Button size="small" onClick={() => void run('enable_key', key.index)}>
                        {t({ id: 'pages.channels.action.enable', defaultMessage: '启用' })}
                      </Button>
                    )}
                  </Space>
                ),
              },
            ]}
          />
        </>
      )}
    </Modal>
  );
}
