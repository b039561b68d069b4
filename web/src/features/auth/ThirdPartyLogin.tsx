import { useState, type ReactNode } from 'react';
import { Button, Flex } from 'antd';
import { GithubOutlined, LoginOutlined, WechatOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useStatus } from '../../app/hooks';
import { useTelegramLoginMutation } from './api';
import { inviteCode } from './invite';
import type { OAuthProvider } from './oauth-urls';
import { TelegramWidget } from './TelegramWidget';
import { useAuthorize } from './use-authorize';
import { useSignIn } from './useSignIn';
import { WeChatLoginModal } from './WeChatLoginModal';

/**
 * Third-party logins shown by the cached status flags (docs/product.md section 4): the
 * code-hosting service, the second OAuth service and OIDC open their authorization page in a
 * new window; WeChat opens a code dialog; Telegram is its own widget. `divider` is drawn above
 * them only when at least one shows.
 */
export function ThirdPartyLogin({ divider }: { divider?: ReactNode }) {
  const intl = useIntl();
  const status = useStatus();
  const [searchParams] = useSearchParams();
  const signIn = useSignIn();
  const { opening, authorize } = useAuthorize();
  const [telegramLogin] = useTelegramLoginMutation();
  const [wechatOpen, setWechatOpen] = useState(false);

  if (!status) return null;
  const github = status.github_oauth;
  const linuxdo = status.linuxdo_oauth;
  const oidc = status.oidc_enabled;
  const wechat = status.wechat_login;
  const telegram = status.telegram_oauth && Boolean(status.telegram_bot_name);
  if (!github && !linuxdo && !oidc && !wechat && !telegram) return null;

  const authorizeWithInvite = (provider: OAuthProvider) => void authorize(provider, inviteCode(searchParams.get('aff')));

  const onTelegram = async (params: Record<string, string>) => {
    const signedIn = await telegramLogin(params)
      .unwrap()
      .catch(() => null);
    if (signedIn) signIn(signedIn);
  };

  const continueWith = (name: string) => intl.formatMessage({ id: 'pages.login.oauth.continueWith', defaultMessage: '使用 {name} 登录' }, { name });

  return (
    <>
      {divider}
      <Flex vertical gap={12}>
        {github && (
          <Button block size="large" icon={<GithubOutlined />} loading={opening === 'github'} onClick={() => authorizeWithInvite('github')}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.github', defaultMessage: 'GitHub' }))}
          </Button>
        )}
        {linuxdo && (
          <Button block size="large" icon={<LoginOutlined />} loading={opening === 'linuxdo'} onClick={() => authorizeWithInvite('linuxdo')}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.linuxdo', defaultMessage: 'LinuxDO' }))}
          </Button>
        )}
        {oidc && (
          <Button block size="large" icon={<LoginOutlined />} loading={opening === 'oidc'} onClick={() => authorizeWithInvite('oidc')}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.oidc', defaultMessage: 'OIDC' }))}
          </Button>
        )}
        {wechat && (
          <Button block size="large" icon={<WechatOutlined />} onClick={() => setWechatOpen(true)}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.wechat', defaultMessage: '微信' }))}
          </Button>
        )}
        {telegram && <TelegramWidget botName={status.telegram_bot_name} size="large" onAuth={(params) => void onTelegram(params)} />}
      </Flex>
      {wechat && <WeChatLoginModal open={wechatOpen} onClose={() => setWechatOpen(false)} />}
    </>
  );
}
