import { useState, type ReactNode } from 'react';
import { App, Button, Card, Flex, Typography } from 'antd';
import { GithubOutlined, LinuxOutlined, MailOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import type { User } from '@aigw/contracts';
import { useStatus } from '../../../app/hooks';
import { TelegramWidget } from '../../auth/TelegramWidget';
import { useAuthorize } from '../../auth/use-authorize';
import { useBindTelegramMutation } from './api';
import { EmailBindDialog } from './EmailBindDialog';
import { WechatBindDialog } from './WechatBindDialog';

function BindingRow({ icon, label, boundId, action }: { icon: ReactNode; label: string; boundId: string; action: ReactNode }) {
  const intl = useIntl();
  return (
    <Flex align="center" justify="space-between" gap={12} wrap style={{ padding: '12px 0' }} role="group" aria-label={label}>
      <Flex align="center" gap={12} style={{ minWidth: 0 }}>
        <span style={{ fontSize: 20 }}>{icon}</span>
        <Flex vertical style={{ minWidth: 0 }}>
          <Typography.Text strong>{label}</Typography.Text>
          <Typography.Text type="secondary" ellipsis>
            {boundId || intl.formatMessage({ id: 'pages.settings.personal.binding.unbound', defaultMessage: '未绑定' })}
          </Typography.Text>
        </Flex>
      </Flex>
      {action}
    </Flex>
  );
}

/** Email, WeChat, code-hosting, Telegram and second-OAuth bindings, each with its bound id or 'not bound'. */
export function BindingsCard({ user }: { user: User }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const status = useStatus();
  const [dialog, setDialog] = useState<'email' | 'wechat' | null>(null);
  // The authorization page opens in a new window; the provider's callback page binds the account.
  const { opening, authorize } = useAuthorize();
  const [bindTelegram] = useBindTelegramMutation();

  const onTelegram = async (params: Record<string, string>) => {
    const bound = await bindTelegram(params)
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (bound) void message.success(intl.formatMessage({ id: 'pages.settings.personal.telegram.bound', defaultMessage: 'Telegram 账户绑定成功！' }));
  };

  const rebind = intl.formatMessage({ id: 'pages.settings.personal.binding.change', defaultMessage: '修改绑定' });
  const telegramLabel = intl.formatMessage({ id: 'pages.settings.personal.telegram.bind', defaultMessage: '绑定 Telegram' });

  return (
    <Card title={intl.formatMessage({ id: 'pages.settings.personal.binding.title', defaultMessage: '账户绑定' })}>
      <BindingRow
        icon={<MailOutlined />}
        label={intl.formatMessage({ id: 'pages.settings.personal.binding.email', defaultMessage: '邮箱' })}
        boundId={user.email}
        action={
          <Button onClick={() => setDialog('email')}>
            {user.email ? rebind : intl.formatMessage({ id: 'pages.settings.personal.email.bind', defaultMessage: '绑定邮箱' })}
          </Button>
        }
      />
      <BindingRow
        icon={<WechatOutlined />}
        label={intl.formatMessage({ id: 'pages.settings.personal.binding.wechat', defaultMessage: '微信' })}
        boundId={user.wechat_id}
        action={
          <Button disabled={!status?.wechat_login} onClick={() => setDialog('wechat')}>
            {user.wechat_id ? rebind : intl.formatMessage({ id: 'pages.settings.personal.wechat.bind', defaultMessage: '绑定微信' })}
          </Button>
        }
      />
      <BindingRow
        icon={<GithubOutlined />}
        label="GitHub"
        boundId={user.github_id}
        action={
          <Button disabled={!status?.github_oauth || Boolean(user.github_id)} loading={opening === 'github'} onClick={() => void authorize('github')}>
            {intl.formatMessage({ id: 'pages.settings.personal.github.bind', defaultMessage: '绑定 GitHub 账号' })}
          </Button>
        }
      />
      <BindingRow
        icon={<SendOutlined />}
        label="Telegram"
        boundId={user.telegram_id}
        action={
          status?.telegram_oauth && !user.telegram_id ? (
            <TelegramWidget botName={status.telegram_bot_name} size="medium" onAuth={(params) => void onTelegram(params)} />
          ) : (
            <Button disabled>{telegramLabel}</Button>
          )
        }
      />
      <BindingRow
        icon={<LinuxOutlined />}
        label="LinuxDO"
        boundId={user.linux_do_id}
        action={
          <Button disabled={!status?.linuxdo_oauth || Boolean(user.linux_do_id)} loading={opening === 'linuxdo'} onClick={() => void authorize('linuxdo')}>
            {intl.formatMessage({ id: 'pages.settings.personal.linuxdo.bind', defaultMessage: '绑定 LinuxDO 账号' })}
          </Button>
        }
      />
      <EmailBindDialog open={dialog === 'email'} onClose={() => setDialog(null)} />
      <WechatBindDialog open={dialog === 'wechat'} onClose={() => setDialog(null)} />
    </Card>
  );
}
