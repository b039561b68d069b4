import { useState } from 'react';
import { App, Button, Dropdown, Popconfirm, Popover, Space, Spin, Typography } from 'antd';
import { TokenStatus, type TokenView } from '@aigw/contracts';
import { useStatus } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { chatLinks, fillChatLink, serverAddress } from '../../lib/chat-links';
import { copyText } from '../../lib/clipboard';
import { useDeleteTokenMutation, useSetTokenStatusMutation } from './api';
import { enableBlocker } from './token-rules';
import { confirmAction } from '../../components/confirm-action';

interface TokenActionsProps {
  token: TokenView;
  /** Whole keys revealed so far. */
  keys: ReadonlyMap<number, string>;
  fullKey: (id: number) => Promise<string | null>;
  onEdit: (id: number) => void;
}

/** A token row's actions: view key, copy, chat, delete, enable/disable, edit. */
export function TokenActions({ token, keys, fullKey, onEdit }: TokenActionsProps) {
  const { message } = App.useApp();
  const status = useStatus();
  const [deleteToken] = useDeleteTokenMutation();
  const [setStatus, { isLoading: switching }] = useSetTokenStatusMutation();
  const [viewing, setViewing] = useState(false);
  const t = useText();

  const clients = chatLinks(status);
  const key = keys.get(token.id);

  const copy = async () => {
    const whole = await fullKey(token.id);
    if (whole && (await copyText(whole))) void message.success(t('pages.tokens.copied', '已复制到剪贴板！'));
  };

  const openChat = async (url: string) => {
    if (!url.trim()) {
      void message.error(t('pages.tokens.chat.invalid', '聊天链接配置错误，请联系管理员'));
      return;
    }
    const whole = await fullKey(token.id);
    if (!whole) return;
    window.open(fillChatLink(url, whole, serverAddress(status)), '_blank', 'noopener,noreferrer');
  };

  const remove = async () => {
    const done = await deleteToken(token.id)
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (done) void message.success(t('pages.tokens.delete.done', '令牌已删除！'));
  };

  const toggle = async () => {
    if (token.status === TokenStatus.Enabled) {
      await setStatus({ id: token.id, status: TokenStatus.Disabled })
        .unwrap()
        .catch(() => null);
      return;
    }
    // Refused here with the reason, as the server would refuse it.
    const blocker = enableBlocker(token);
    if (blocker === 'expired') {
      void message.warning(t('pages.tokens.enable.expired', '令牌已过期，无法启用。请先修改过期时间，或设为永不过期。'));
      return;
    }
    if (blocker === 'exhausted') {
      void message.warning(t('pages.tokens.enable.exhausted', '令牌额度已用尽，无法启用。请先增加剩余额度，或设为无限额度。'));
      return;
    }
    await setStatus({ id: token.id, status: TokenStatus.Enabled })
      .unwrap()
      .catch(() => null);
  };

  const chatLabel = t('pages.tokens.action.chat', '聊天');
  return (
    <Space size={4} wrap>
      <Popover
        trigger="click"
        open={viewing}
        onOpenChange={(open) => {
          setViewing(open);
          // A refused reveal (its message is shown) closes the popover instead of spinning.
          if (open) void fullKey(token.id).then((whole) => whole === null && setViewing(false));
        }}
        content={
          key ? (
            <Typography.Text code copyable={{ text: key }}>
              {key}
            </Typography.Text>
          ) : (
            <Spin size="small" />
          )
        }
      >
        <Button size="small">{t('pages.tokens.action.view', '查看')}</Button>
      </Popover>
      <Button size="small" type="primary" onClick={() => void copy()}>
        {t('pages.tokens.action.copy', '复制')}
      </Button>
      {clients.length === 0 ? (
        <Button size="small" onClick={() => void message.error(t('pages.tokens.chat.none', '请联系管理员配置聊天链接'))}>
          {chatLabel}
        </Button>
      ) : (
        <Dropdown
          trigger={['click']}
          // Fetched as the menu opens, so choosing a client can open its tab at once.
          onOpenChange={(open) => open && void fullKey(token.id)}
          menu={{
            items: clients.map((client, index) => ({ key: String(index), label: client.name })),
            onClick: ({ key: index }) => void openChat(clients[Number(index)]!.url),
          }}
        >
          <Button size="small">{chatLabel}</Button>
        </Dropdown>
      )}
      <Popconfirm
        title={t('pages.tokens.delete.confirm', '确定要删除令牌 {name} 吗？', { name: token.name })}
        okText={t('pages.tokens.action.delete', '删除')}
        okButtonProps={{ danger: true }}
        cancelText={t('common.cancel', '取消')}
        onConfirm={confirmAction(remove)}
      >
        <Button size="small" danger>
          {t('pages.tokens.action.delete', '删除')}
        </Button>
      </Popconfirm>
      <Button size="small" loading={switching} onClick={() => void toggle()}>
        {token.status === TokenStatus.Enabled ? t('pages.tokens.action.disable', '禁用') : t('pages.tokens.action.enable', '启用')}
      </Button>
      <Button size="small" onClick={() => onEdit(token.id)}>
        {t('pages.tokens.action.edit', '编辑')}
      </Button>
    </Space>
  );
}
