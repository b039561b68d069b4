import { useState, type ReactNode } from 'react';
import { App, Button, Card, Flex, Typography } from 'antd';
import { GithubOutlined, LinuxOutlined, MailOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import type { User } from '@aigw/contracts';
import { useStatus } from '../../../app/hooks';
import { useOauthStateMutation } from '../../auth/api';
import { useBindTelegramMutation } from './api';
import { EmailBindDialog } from './EmailBindDialog';
import { githubAuthorizeUrl, linuxdoAuthorizeUrl } from './oauth';
import { TelegramBindWidget } from './TelegramBindWidget';
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
  const [oauthState] = useOauthStateMutation();
  const [authorizing, setAuthorizing] = useState<'github' | 'linuxdo' | null>(null);
  const [bindTelegram] = useBindTelegramMutation();

  // The authorization page opens in a new window; the provider's callback page binds the account.
  const authorize = async (provider: 'github' | 'linuxdo', clientId: string) => {
    setAuthorizing(provider);
    const state = await oauthState({}).unwrap().catch(() => null);
    setAuthorizing(null);
    if (!state) return;
    const url = provider === 'github' ? githubAuthorizeUrl : linuxdoAuthorizeUrl;
    window.open(url(clientId, state), '_blank', 'noopener');
  };

  const onTelegram = async (fields: Record<string, string>) => {
    const bound = await bindTelegram(fields).unwrap().then(() => true, () => false);
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
          <Button
            disabled={!status?.github_oauth || Boolean(user.github_id)}
            loading={authorizing === 'github'}
            onClick={() => void authorize('github', status?.github_client_id ?? '')}
          >
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
            <TelegramBindWidget botName={status.telegram_bot_name} onAuth={(fields) => void onTelegram(fields)} />
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
          <Button
            disabled={!status?.linuxdo_oauth || Boolean(user.linux_do_id)}
            loading={authorizing === 'linuxdo'}
            onClick={() => void authorize('linuxdo', status?.linuxdo_client_id ?? '')}
          >
            {intl.formatMessage({ id: 'pages.settings.personal.linuxdo.bind', defaultMessage: '绑定 LinuxDO 账号' })}
          </Button>
        }
      />
      <EmailBindDialog open={dialog === 'email'} onClose={() => setDialog(null)} />
      <WechatBindDialog open={dialog === 'wechat'} onClose={() => setDialog(null)} />
    </Card>
  );
}
