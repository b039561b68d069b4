import { useState } from 'react';
import { App, Button, Dropdown, Popconfirm, Space } from 'antd';
import { DownOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { ChannelStatus, type ChannelView, type TagRow } from '@aigw/contracts';
import { useCopyChannelMutation, useDeleteChannelMutation, useSetChannelStatusMutation, useSetTagStatusMutation } from './api';
import { splitModels } from './form-values';
import { useFailureText, useShowFailure } from './use-failure';
import { useTestChannel } from './use-test-channel';
import { confirmAction } from '../../components/confirm-action';
import { KeysModal } from './KeysModal';

/** Test (with a per-model menu), delete, enable or disable, edit and copy of one channel; the key list of a channel with many keys. */
export function ChannelActions({ channel, onEdit }: { channel: ChannelView; onEdit(id: number): void }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const showFailure = useShowFailure();
  const failureText = useFailureText();
  const test = useTestChannel();
  const [remove] = useDeleteChannelMutation();
  const [setStatus] = useSetChannelStatusMutation();
  const [copy] = useCopyChannelMutation();
  const models = splitModels(channel.models);
  const enabled = channel.status === ChannelStatus.Enabled;
  const [keysOpen, setKeysOpen] = useState(false);

  const onDelete = async () => {
    const done = await remove(channel.id)
      .unwrap()
      .then(
        () => true,
        (error: unknown) => (showFailure(error), false),
      );
    if (done) void message.success(intl.formatMessage({ id: 'pages.channels.delete.done', defaultMessage: '删除成功' }));
  };

  const onToggle = async () => {
    const done = await setStatus({ id: channel.id, status: enabled ? 2 : 1 })
      .unwrap()
      .then(
        () => true,
        (error: unknown) => (showFailure(error), false),
      );
    if (done) void message.success(intl.formatMessage({ id: 'pages.channels.done', defaultMessage: '操作成功完成！' }));
  };

  const onCopy = async () => {
    try {
      await copy(channel.id).unwrap();
      void message.success(intl.formatMessage({ id: 'pages.channels.copy.done', defaultMessage: '渠道复制成功' }));
    } catch (error) {
      void message.error(intl.formatMessage({ id: 'pages.channels.copy.failed', defaultMessage: '渠道复制失败: {reason}' }, { reason: failureText(error) }));
    }
  };

  return (
    <Space size={4} wrap>
      <Space.Compact size="small">
        <Button size="small" onClick={() => void test(channel)}>
          {intl.formatMessage({ id: 'pages.channels.action.test', defaultMessage: '测试' })}
        </Button>
        <Dropdown
          trigger={['click']}
          disabled={models.length === 0}
          menu={{
            items: models.map((model) => ({ key: model, label: model })),
            onClick: ({ key }) => void test(channel, key),
            style: { maxHeight: 320, overflowY: 'auto' },
          }}
        >
          <Button
            size="small"
            icon={<DownOutlined />}
            aria-label={intl.formatMessage({ id: 'pages.channels.action.testModel', defaultMessage: '选择测试模型' })}
          />
        </Dropdown>
      </Space.Compact>
      <Popconfirm
        title={intl.formatMessage({ id: 'pages.channels.delete.confirm', defaultMessage: '确定是否要删除此渠道？' })}
        description={intl.formatMessage({ id: 'pages.channels.delete.irreversible', defaultMessage: '此修改将不可逆' })}
        okButtonProps={{ danger: true }}
        onConfirm={confirmAction(onDelete)}
      >
        <Button size="small" danger>
          {intl.formatMessage({ id: 'pages.channels.action.delete', defaultMessage: '删除' })}
        </Button>
      </Popconfirm>
      <Button size="small" onClick={() => void onToggle()}>
        {enabled
          ? intl.formatMessage({ id: 'pages.channels.action.disable', defaultMessage: '禁用' })
          : intl.formatMessage({ id: 'pages.channels.action.enable', defaultMessage: '启用' })}
      </Button>
      <Button size="small" onClick={() => onEdit(channel.id)}>
        {intl.formatMessage({ id: 'pages.channels.action.edit', defaultMessage: '编辑' })}
      </Button>
      <Popconfirm
        title={intl.formatMessage({ id: 'pages.channels.copy.confirm', defaultMessage: '确定是否要复制此渠道？' })}
        description={intl.formatMessage({ id: 'pages.channels.copy.description', defaultMessage: '复制渠道的所有信息，余额和已用额度归零' })}
        onConfirm={confirmAction(onCopy)}
      >
        <Button size="small">{intl.formatMessage({ id: 'pages.channels.action.copy', defaultMessage: '复制' })}</Button>
      </Popconfirm>
      {channel.multi_key && (
        <Button size="small" onClick={() => setKeysOpen(true)}>
          {intl.formatMessage(
            { id: 'pages.channels.action.keys', defaultMessage: '密钥 {live}/{size}' },
            { live: channel.multi_key.live, size: channel.multi_key.size },
          )}
        </Button>
      )}
      {keysOpen && <KeysModal channel={channel} onClose={() => setKeysOpen(false)} />}
    </Space>
  );
}

/** Enable all, disable all and edit for a tag row. */
export function TagActions({ row, onEdit }: { row: TagRow; onEdit(tag: string): void }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [setTagStatus] = useSetTagStatusMutation();

  const apply = async (enabled: boolean) => {
    const count = await setTagStatus({ tag: row.tag, enabled })
      .unwrap()
      .catch(() => null);
    if (count !== null) void message.success(intl.formatMessage({ id: 'pages.channels.done', defaultMessage: '操作成功完成！' }));
  };

  return (
    <Space size={4} wrap>
      <Button size="small" onClick={() => void apply(true)}>
        {intl.formatMessage({ id: 'pages.channels.tag.enableAll', defaultMessage: '启用全部' })}
      </Button>
      <Button size="small" onClick={() => void apply(false)}>
        {intl.formatMessage({ id: 'pages.channels.tag.disableAll', defaultMessage: '禁用全部' })}
      </Button>
      <Button size="small" onClick={() => onEdit(row.tag)}>
        {intl.formatMessage({ id: 'pages.channels.action.edit', defaultMessage: '编辑' })}
      </Button>
    </Space>
  );
}
