import type { FastifyInstance } from 'fastify';
import type { Status } from '@aigw/contracts';
import type { IdentityContext } from '../context.js';
import { resolveRelyingParty } from '../domain/relying-party.js';

/** The public site configuration the console caches, and the admin-written texts. */
export async function statusRoutes(app: FastifyInstance, { context }: { context: IdentityContext }) {
  const { options } = context;

  /** The passkey fields: the relying party as ServerAddress and the passkey.* options make it. */
  const passkeyStatus = () => {
    let rp: { id: string; origins: string[] } = { id: '', origins: [] };
    try {
      rp = resolveRelyingParty(
        {
          rpId: options.get('passkey.rp_id'),
          rpName: options.get('passkey.rp_display_name'),
          origins: options.get('passkey.origins'),
          allowInsecureOrigin: options.get('passkey.allow_insecure_origin'),
          serverAddress: options.get('ServerAddress'),
          systemName: options.get('SystemName'),
        },
        '',
      );
    } catch {
      // Not usable as configured: the id and origins stay empty, sign-in with a passkey refuses with the reason.
    }
    return {
      passkey_login: options.get('passkey.enabled'),
      passkey_display_name: options.get('passkey.rp_display_name') || options.get('SystemName'),
      passkey_rp_id: rp.id,
      passkey_origins: rp.origins.join(','),
      passkey_allow_insecure: options.get('passkey.allow_insecure_origin'),
      passkey_user_verification: options.get('passkey.user_verification'),
      passkey_attachment: options.get('passkey.attachment_preference'),
    };
  };

  app.get('/api/status', { config: { access: 'public' } }, async () => {
    const data: Status = {
      version: context.version,
      start_time: context.startTime,
      system_name: options.get('SystemName'),
      logo: options.get('Logo'),
      footer_html: options.get('Footer'),
      server_address: options.get('ServerAddress'),
      docs_link: options.get('general_setting.docs_link'),
      top_up_link: options.get('TopUpLink'),
      quota_per_unit: options.get('QuotaPerUnit'),
      display_in_currency: options.get('DisplayInCurrencyEnabled'),
      enable_batch_update: false,
      enable_drawing: options.get('DrawingEnabled'),
      enable_task: options.get('TaskEnabled'),
      enable_data_export: options.get('DataExportEnabled'),
      data_export_default_time: options.get('DataExportDefaultTime'),
      default_collapse_sidebar: options.get('DefaultCollapseSidebar'),
      // The established rule: gateway address, partner id and signing key all set (billing checks the same).
      enable_online_topup: Boolean(options.get('PayAddress') && options.get('EpayId') && options.get('EpayKey')),
      price: options.get('Price'),
      min_topup: options.get('MinTopUp'),
      mj_notify_enabled: options.get('MjNotifyEnabled'),
      chats: options.get('Chats'),
      chat_link: options.get('ChatLink'),
      chat_link2: options.get('ChatLink2'),
      demo_site_enabled: options.get('DemoSiteEnabled'),
      self_use_mode_enabled: options.get('SelfUseModeEnabled'),
      setup: true,
      password_login_enabled: options.get('PasswordLoginEnabled'),
      password_register_enabled: options.get('PasswordRegisterEnabled'),
      register_enabled: options.get('RegisterEnabled'),
      email_verification: options.get('EmailVerificationEnabled'),
      github_oauth: options.get('GitHubOAuthEnabled'),
      github_client_id: options.get('GitHubClientId'),
      linuxdo_oauth: options.get('LinuxDOOAuthEnabled'),
      linuxdo_client_id: options.get('LinuxDOClientId'),
      oidc_enabled: options.get('oidc.enabled'),
      oidc_client_id: options.get('oidc.client_id'),
      oidc_authorization_endpoint: options.get('oidc.authorization_endpoint'),
      telegram_oauth: options.get('TelegramOAuthEnabled'),
      telegram_bot_name: options.get('TelegramBotName'),
      wechat_login: options.get('WeChatAuthEnabled'),
      wechat_qrcode: options.get('WeChatAccountQRCodeImageURL'),
      turnstile_check: options.get('TurnstileCheckEnabled'),
      turnstile_site_key: options.get('TurnstileSiteKey'),
      ...passkeyStatus(),
    };
    return { success: true, message: '', data };
  });

  const text = (path: string, key: 'Notice' | 'About' | 'HomePageContent') =>
    app.get(path, { config: { access: 'public' } }, async () => ({ success: true, message: '', data: options.get(key) }));
  text('/api/notice', 'Notice');
  text('/api/about', 'About');
  text('/api/home_page_content', 'HomePageContent');
}
