import { useState, type ReactNode } from 'react';
import { Button, Flex } from 'antd';
import { GithubOutlined, LoginOutlined, WechatOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useStatus } from '../../app/hooks';
import { useOauthStateMutation, useTelegramLoginMutation } from './api';
import { inviteCode } from './invite';
import { githubAuthorizeUrl, linuxdoAuthorizeUrl, oidcAuthorizeUrl } from './oauth-urls';
import { TelegramLoginWidget, telegramParams, type TelegramUser } from './TelegramLoginWidget';
import { useSignIn } from './useSignIn';
import { WeChatLoginModal } from './WeChatLoginModal';

type OAuthProvider = 'github' | 'linuxdo' | 'oidc';

/** The global function the Telegram widget calls on the login and register pages. */
const TELEGRAM_CALLBACK = 'onTelegramLoginAuth';

/**
 * Third-party logins shown by the cached status flags (spec accounts section 2): the
 * code-hosting service, the second OAuth service and OIDC open their authorization page in a
 * new window; WeChat opens a code dialog; Telegram is its own widget. `divider` is drawn above
 * them only when at least one shows.
 */
export function ThirdPartyLogin({ divider }: { divider?: ReactNode }) {
  const intl = useIntl();
  const status = useStatus();
  const [searchParams] = useSearchParams();
  const signIn = useSignIn();
  const [oauthState] = useOauthStateMutation();
  const [telegramLogin] = useTelegramLoginMutation();
  const [opening, setOpening] = useState<OAuthProvider | null>(null);
  const [wechatOpen, setWechatOpen] = useState(false);

  if (!status) return null;
  const github = status.github_oauth;
  const linuxdo = status.linuxdo_oauth;
  const oidc = status.oidc_enabled;
  const wechat = status.wechat_login;
  const telegram = status.telegram_oauth && Boolean(status.telegram_bot_name);
  if (!github && !linuxdo && !oidc && !wechat && !telegram) return null;

  // The state ties the provider's answer to this browser; `aff` lets the server credit the
  // inviter when the third-party login creates the account.
  const authorize = async (provider: OAuthProvider) => {
    setOpening(provider);
    const state = await oauthState({ aff: inviteCode(searchParams.get('aff')) }).unwrap().catch(() => null);
    setOpening(null);
    if (!state) return;
    const url =
      provider === 'github' ? githubAuthorizeUrl(status.github_client_id, state)
      : provider === 'linuxdo' ? linuxdoAuthorizeUrl(status.linuxdo_client_id, state)
      : oidcAuthorizeUrl(status.oidc_authorization_endpoint, status.oidc_client_id, state, status.server_address || window.location.origin);
    window.open(url, '_blank', 'noopener');
  };

  const onTelegram = async (user: TelegramUser) => {
    const signedIn = await telegramLogin(telegramParams(user)).unwrap().catch(() => null);
    if (signedIn) signIn(signedIn);
  };

  const continueWith = (name: string) => intl.formatMessage({ id: 'pages.login.oauth.continueWith', defaultMessage: '使用 {name} 登录' }, { name });

  return (
    <>
      {divider}
      <Flex vertical gap={12}>
        {github && (
          <Button block size="large" icon={<GithubOutlined />} loading={opening === 'github'} onClick={() => void authorize('github')}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.github', defaultMessage: 'GitHub' }))}
          </Button>
        )}
        {linuxdo && (
          <Button block size="large" icon={<LoginOutlined />} loading={opening === 'linuxdo'} onClick={() => void authorize('linuxdo')}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.linuxdo', defaultMessage: 'LinuxDO' }))}
          </Button>
        )}
        {oidc && (
          <Button block size="large" icon={<LoginOutlined />} loading={opening === 'oidc'} onClick={() => void authorize('oidc')}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.oidc', defaultMessage: 'OIDC' }))}
          </Button>
        )}
        {wechat && (
          <Button block size="large" icon={<WechatOutlined />} onClick={() => setWechatOpen(true)}>
            {continueWith(intl.formatMessage({ id: 'pages.login.oauth.wechat', defaultMessage: '微信' }))}
          </Button>
        )}
        {telegram && <TelegramLoginWidget botName={status.telegram_bot_name} callbackName={TELEGRAM_CALLBACK} onAuth={(user) => void onTelegram(user)} />}
      </Flex>
      {wechat && <WeChatLoginModal open={wechatOpen} onClose={() => setWechatOpen(false)} />}
    </>
  );
}
