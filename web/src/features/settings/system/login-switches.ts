import type { OptionKey } from '@aigw/contracts';
import type { Text } from '../../../app/use-text';

export interface LoginSwitch {
  key: OptionKey;
  label: (t: Text) => string;
  /**
   * Stored (non-secret) settings that must be filled in before the switch may be turned on,
   * and the message that says so. The server checks the same, secrets included.
   */
  requires?: { keys: OptionKey[]; message: (t: Text) => string };
}

/** The login and registration switches, in the order the card shows them. */
export const loginSwitches: LoginSwitch[] = [
  { key: 'PasswordLoginEnabled', label: (t) => t('pages.settings.system.login.passwordLogin', '允许通过密码进行登录') },
  { key: 'PasswordRegisterEnabled', label: (t) => t('pages.settings.system.login.passwordRegister', '允许通过密码进行注册') },
  { key: 'EmailVerificationEnabled', label: (t) => t('pages.settings.system.login.emailVerification', '通过密码注册时需要进行邮箱验证') },
  {
    key: 'GitHubOAuthEnabled',
    label: (t) => t('pages.settings.system.login.github', '允许通过 GitHub 账户登录 & 注册'),
    requires: {
      keys: ['GitHubClientId'],
      message: (t) => t('pages.settings.system.login.github.required', '请先填入 GitHub Client Id 以及 GitHub Client Secret！'),
    },
  },
  {
    key: 'LinuxDOOAuthEnabled',
    label: (t) => t('pages.settings.system.login.linuxdo', '允许通过 Linux DO 账户登录 & 注册'),
    requires: {
      keys: ['LinuxDOClientId'],
      message: (t) => t('pages.settings.system.login.linuxdo.required', '请先填入 Linux DO Client Id 以及 Linux DO Client Secret！'),
    },
  },
  {
    key: 'oidc.enabled',
    label: (t) => t('pages.settings.system.login.oidc', '允许通过 OIDC 登录 & 注册'),
    requires: {
      keys: ['oidc.client_id', 'oidc.authorization_endpoint', 'oidc.token_endpoint', 'oidc.user_info_endpoint'],
      message: (t) => t('pages.settings.system.login.oidc.required', '请先填入 OIDC Client Id、Client Secret 以及各端点地址！'),
    },
  },
  {
    key: 'WeChatAuthEnabled',
    label: (t) => t('pages.settings.system.login.wechat', '允许通过微信登录 & 注册'),
    requires: {
      keys: ['WeChatServerAddress'],
      message: (t) => t('pages.settings.system.login.wechat.required', '请先填入 WeChat Server 服务器地址以及访问凭证！'),
    },
  },
  {
    key: 'TelegramOAuthEnabled',
    label: (t) => t('pages.settings.system.login.telegram', '允许通过 Telegram 进行登录'),
    requires: { keys: ['TelegramBotName'], message: (t) => t('pages.settings.system.login.telegram.required', '请先填入 Telegram Bot 名称以及 Bot Token！') },
  },
  {
    key: 'TurnstileCheckEnabled',
    label: (t) => t('pages.settings.system.login.turnstile', '启用 Turnstile 用户校验'),
    requires: {
      keys: ['TurnstileSiteKey'],
      message: (t) => t('pages.settings.system.login.turnstile.required', '请先填入 Turnstile Site Key 以及 Secret Key！'),
    },
  },
  { key: 'RegisterEnabled', label: (t) => t('pages.settings.system.login.register', '允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）') },
];

/** Whether every setting a switch needs is stored (non-blank). */
export function hasRequiredSettings(entry: LoginSwitch, stored: Record<string, string> | undefined): boolean {
  return (entry.requires?.keys ?? []).every((key) => (stored?.[key] ?? '').trim() !== '');
}
