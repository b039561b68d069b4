import type { Catalogue } from './catalogue.js';

/** What signing in and its ceremonies say: passwords, second factors, passkeys, OAuth, Telegram, registration. */
export const signInMessages = {
  // Signing in with a password, and who may sign in at all.
  'auth.password_login_disabled': { 'zh-CN': '管理员已关闭密码登录', 'en-US': 'the administrator has turned off password login' },
  'auth.user_banned': { 'zh-CN': '用户已被封禁', 'en-US': 'the user has been banned' },
  'auth.account_deleted': { 'zh-CN': '该账户已注销', 'en-US': 'the account has been deleted' },
  'auth.enter_authenticator_code': { 'zh-CN': '请输入身份验证器应用中的验证码', 'en-US': 'enter the code of your authenticator app' },
  'auth.sign_in_expired': { 'zh-CN': '登录已过期，请重新登录', 'en-US': 'the sign-in has expired, please sign in again' },
  'auth.reset_link_invalid': { 'zh-CN': '重置链接无效或已过期', 'en-US': 'the reset link is invalid or has expired' },

  // Registration with a password.
  'signup.disabled': { 'zh-CN': '管理员已关闭新用户注册', 'en-US': 'the administrator has turned off new-user registration' },
  'signup.password_disabled': {
    'zh-CN': '管理员已关闭密码注册，请使用第三方账户注册',
    'en-US': 'the administrator has turned off registration with a password; use a third-party login',
  },
  'signup.email_required': { 'zh-CN': '已开启邮箱验证，必须填写邮箱', 'en-US': 'required while email verification is on' },
  'signup.code_required': { 'zh-CN': '请输入邮箱验证码', 'en-US': 'please enter the email verification code' },
  'signup.code_wrong': { 'zh-CN': '验证码错误或已过期', 'en-US': 'the verification code is wrong or has expired' },

  // Mails with a verification code or a reset link.
  'verify.resend_wait': { 'zh-CN': '请等待 {seconds} 秒后再重新获取', 'en-US': 'please wait {seconds} seconds before asking again' },
  'verify.mail_refused': {
    'zh-CN': '邮件服务器未接收该邮件（{reason}）；系统会重试，但请检查邮箱地址或联系管理员',
    'en-US': 'the mail server did not take the mail ({reason}); it is tried again, but check the address or ask the administrator',
  },
  'verify.mail_refused_no_reason': {
    'zh-CN': '邮件服务器未接收该邮件；系统会重试，但请检查邮箱地址或联系管理员',
    'en-US': 'the mail server did not take the mail; it is tried again, but check the address or ask the administrator',
  },
  'verify.no_mail_server': {
    'zh-CN': '本站无法发送邮件：未设置 SMTP 服务器，请联系管理员',
    'en-US': 'this server cannot send mail: no SMTP server is set; ask the administrator',
  },

  // The administrator's email rules for registration.
  'email_rules.domain_not_allowed': {
    'zh-CN': '管理员只允许使用以下域名的邮箱：{domains}',
    'en-US': 'the administrator only allows emails from these domains: {domains}',
  },
  'email_rules.alias_not_allowed': {
    'zh-CN': "不允许使用邮箱别名（用户名部分含 '+' 或 '.'）",
    'en-US': "email aliases ('+' or '.' in the name part) are not allowed",
  },

  // Two-factor authentication (TOTP and backup codes).
  'two_factor.wrong_code': { 'zh-CN': '验证码或备用码错误，请重试', 'en-US': 'the verification code or backup code is wrong, please try again' },
  'two_factor.too_many_attempts': { 'zh-CN': '错误次数过多，请几分钟后再试', 'en-US': 'too many wrong codes, try again in a few minutes' },
  'two_factor.already_enabled_setup': {
    'zh-CN': '两步验证已经启用，请先停用再重新设置',
    'en-US': 'two-factor authentication is already enabled; disable it before setting it up again',
  },
  'two_factor.setup_first': { 'zh-CN': '请先设置两步验证', 'en-US': 'set up two-factor authentication first' },
  'two_factor.already_enabled': { 'zh-CN': '两步验证已经启用', 'en-US': 'two-factor authentication is already enabled' },
  'two_factor.code_format': { 'zh-CN': '请输入身份验证器应用显示的 6 位验证码', 'en-US': 'enter the 6-digit code your authenticator app shows' },
  'two_factor.not_enabled': { 'zh-CN': '未启用两步验证', 'en-US': 'two-factor authentication is not enabled' },
  'two_factor.setup_started': {
    'zh-CN': '请使用身份验证器应用扫描二维码，并输入其显示的验证码以完成设置',
    'en-US': 'scan the QR code with an authenticator app and enter the code it shows to finish',
  },
  'two_factor.enabled': { 'zh-CN': '两步验证已启用', 'en-US': 'two-factor authentication is enabled' },
  'two_factor.disabled': { 'zh-CN': '两步验证已停用', 'en-US': 'two-factor authentication is disabled' },
  'two_factor.backup_codes_renewed': { 'zh-CN': '已生成新的备用码，之前的备用码不再有效', 'en-US': 'new backup codes: the previous ones no longer work' },
  'two_factor.user_not_enabled': { 'zh-CN': '该用户未启用两步验证', 'en-US': 'the user has not enabled two-factor authentication' },
  'two_factor.user_reset': { 'zh-CN': '已重置该用户的两步验证', 'en-US': "the user's two-factor authentication has been reset" },

  // Passkeys (WebAuthn).
  'passkey.not_enabled': { 'zh-CN': '管理员未启用通行密钥', 'en-US': 'the administrator has not enabled passkeys' },
  'passkey.https_origin_required': {
    'zh-CN': '通行密钥需要 https 来源：请将 ServerAddress（或 passkey.origins）设为本站的 https 地址',
    'en-US': 'passkeys need an https origin: set ServerAddress (or passkey.origins) to the https address of this site',
  },
  'passkey.verification_failed': { 'zh-CN': '通行密钥验证失败', 'en-US': 'passkey verification failed' },
  'passkey.verification_failed_because': { 'zh-CN': '通行密钥验证失败：{reason}', 'en-US': 'passkey verification failed: {reason}' },
  'passkey.not_registered_here': {
    'zh-CN': '通行密钥验证失败：此通行密钥未在本站注册',
    'en-US': 'passkey verification failed: this passkey is not registered here',
  },
  'passkey.limit': { 'zh-CN': '每个账户最多 {max} 个通行密钥，请先删除一个', 'en-US': 'at most {max} passkeys per account; remove one first' },
  'passkey.already_registered': { 'zh-CN': '此通行密钥已经注册', 'en-US': 'this passkey is already registered' },
  'passkey.none_registered': { 'zh-CN': '此账户尚未注册通行密钥', 'en-US': 'no passkey is registered for this account' },
  'passkey.registration_expired': { 'zh-CN': '通行密钥注册已过期，请重新开始', 'en-US': 'the passkey registration has expired, please start again' },
  'passkey.verification_expired': { 'zh-CN': '通行密钥验证已过期，请重新开始', 'en-US': 'the passkey verification has expired, please start again' },
  'passkey.sign_in_expired': { 'zh-CN': '通行密钥登录已过期，请重新开始', 'en-US': 'the passkey sign-in has expired, please start again' },
  'passkey.registered': { 'zh-CN': '通行密钥已注册', 'en-US': 'passkey registered' },
  'passkey.all_removed': { 'zh-CN': '已删除全部通行密钥', 'en-US': 'passkeys removed' },
  'passkey.removed': { 'zh-CN': '通行密钥已删除', 'en-US': 'passkey removed' },
  'passkey.not_found': { 'zh-CN': '通行密钥不存在', 'en-US': 'passkey not found' },
  'passkey.user_has_none': { 'zh-CN': '该用户没有通行密钥', 'en-US': 'the user has no passkey' },
  'passkey.user_reset': { 'zh-CN': '已删除该用户的通行密钥', 'en-US': "the user's passkeys have been removed" },
  'passkey.base64url': { 'zh-CN': '必须是 base64url 编码', 'en-US': 'must be base64url' },

  // The step-up before sensitive actions (POST /api/verify).
  'step_up.session_required': {
    'zh-CN': '安全验证只能在控制台会话中进行：请登录控制台（访问令牌无法进行验证）',
    'en-US': 'verification belongs to a console session: sign in to the console (access tokens cannot verify)',
  },
  'step_up.factor_required': {
    'zh-CN': '请先设置两步验证或通行密钥（个人设置，安全）',
    'en-US': 'set up two-factor authentication or a passkey first (personal settings, security)',
  },
  'step_up.fresh_required': { 'zh-CN': '请先完成安全验证（POST /api/verify）', 'en-US': 'a fresh verification is required first (POST /api/verify)' },
  'step_up.passkey_not_started': {
    'zh-CN': '请先开始通行密钥验证（POST /api/user/passkey/verify/begin）',
    'en-US': 'start the passkey verification first (POST /api/user/passkey/verify/begin)',
  },

  // Third-party logins (GitHub, LinuxDO, OIDC, WeChat, Telegram); {provider} is the provider's name.
  'oauth.not_enabled': { 'zh-CN': '管理员未启用 {provider} 登录', 'en-US': 'the administrator has not enabled {provider} login' },
  'oauth.already_bound': { 'zh-CN': '此 {provider} 账户已绑定其他用户', 'en-US': 'this {provider} account is already bound to another user' },
  'oauth.state_invalid': {
    'zh-CN': '授权状态无效或已过期，请重新开始',
    'en-US': 'the authorization state is invalid or has expired; please start again',
  },
  'oauth.login_failed': { 'zh-CN': '{provider} 登录失败：{detail}', 'en-US': '{provider} login failed: {detail}' },
  'oauth.provider_timeout': { 'zh-CN': '{provider} 登录失败：连接服务商超时', 'en-US': '{provider} login failed: could not reach the provider (timed out)' },
  'oauth.provider_refused': {
    'zh-CN': '{provider} 登录失败：服务商拒绝连接',
    'en-US': '{provider} login failed: could not reach the provider (connection refused)',
  },
  'oauth.provider_dns': {
    'zh-CN': '{provider} 登录失败：无法解析服务商的域名',
    'en-US': '{provider} login failed: could not reach the provider (its name does not resolve)',
  },
  'oauth.provider_blocked': {
    'zh-CN': '{provider} 登录失败：不允许访问服务商的地址',
    'en-US': '{provider} login failed: could not reach the provider (the address is not allowed)',
  },
  'oauth.provider_too_large': { 'zh-CN': '{provider} 登录失败：服务商的应答过大', 'en-US': "{provider} login failed: the provider's answer is too large" },
  'oauth.provider_network': {
    'zh-CN': '{provider} 登录失败：无法连接服务商（网络错误）',
    'en-US': '{provider} login failed: could not reach the provider (network error)',
  },
  'oauth.provider_http_status': {
    'zh-CN': '{provider} 登录失败：服务商返回 HTTP {status}',
    'en-US': '{provider} login failed: the provider answered HTTP {status}',
  },
  'oauth.provider_unexpected': {
    'zh-CN': '{provider} 登录失败：无法识别服务商的应答',
    'en-US': '{provider} login failed: the provider gave an unexpected answer',
  },
  'oauth.oidc_endpoints_missing': {
    'zh-CN': 'OIDC 登录失败：未配置 token 和 userinfo 端点',
    'en-US': 'OIDC login failed: the token and userinfo endpoints are not configured',
  },
  'oauth.wechat_code_wrong': { 'zh-CN': '微信登录失败：验证码错误或已过期', 'en-US': 'WeChat login failed: the verification code is wrong or has expired' },
  'telegram.auth_invalid': { 'zh-CN': 'Telegram 授权无效或已过期', 'en-US': 'Telegram authorization is invalid or has expired' },
  'telegram.not_bound': {
    'zh-CN': '此 Telegram 账户未绑定用户，请先在个人设置页面绑定',
    'en-US': 'this Telegram account is not bound to a user; bind it from the settings page first',
  },
  'telegram.id_format': { 'zh-CN': '必须是 Telegram 用户 ID', 'en-US': 'must be the Telegram user id' },
  'telegram.auth_date_format': { 'zh-CN': '必须是 Unix 时间戳（秒）', 'en-US': 'must be seconds since the epoch' },
  'telegram.hash_format': { 'zh-CN': '必须是 64 位十六进制字符', 'en-US': 'must be 64 hex characters' },
} as const satisfies Catalogue;
