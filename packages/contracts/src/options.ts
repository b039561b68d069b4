import { z } from 'zod';
import { PRODUCT_NAME } from './status.js';
import { issueMessage, msg } from './messages/index.js';
import { groupRateLimitsSchema, modelRateLimitsSchema, modelRequestRateLimitGroupSchema, rateLimitsSchema } from './limits.js';

/**
 * Typed settings (style rule 16, CONTRIBUTING.md). Each option has a group (the settings card it
 * belongs to), a zod schema for its value, a default, and whether it is a secret (write-only in the
 * API). Values are stored as strings (booleans as "true"/"false", maps as JSON) for compatibility
 * with the established product's option rows; `decodeOptionValue` and `encodeOptionValue` convert.
 */
export const optionGroups = [
  'general',
  'quota',
  'drawing',
  'sensitive',
  'log',
  'dashboard',
  'monitoring',
  'chat',
  'group',
  'ratio',
  'server',
  'payment',
  'auth',
  'email',
  'smtp',
  'github',
  'linuxdo',
  'oidc',
  'wechat',
  'telegram',
  'wxpusher',
  'notify',
  'turnstile',
  'content',
  'model',
  'passkey',
  'limits',
] as const;
export type OptionGroup = (typeof optionGroups)[number];

type Kind = 'boolean' | 'number' | 'string' | 'json';

export interface OptionDefinition<T = unknown> {
  group: OptionGroup;
  kind: Kind;
  schema: z.ZodType<T>;
  default: T;
  /** Secrets are never returned by the API and never travel on events. */
  secret: boolean;
  /** What the option does. */
  doc: string;
}

function define<T>(kind: Kind, schema: z.ZodType<T>) {
  return (group: OptionGroup, defaultValue: T, doc: string, secret = false): OptionDefinition<T> => ({
    group,
    kind,
    schema,
    default: defaultValue,
    secret,
    doc,
  });
}

const bool = define('boolean', z.boolean());
const nonNegativeInt = define('number', z.number().int().min(0));
const positiveNumber = define('number', z.number().positive());
const nonNegativeNumber = define('number', z.number().min(0));
const text = define('string', z.string().max(65536));
/** An http(s) URL or empty, its trailing slashes dropped: every client can use it as a base (a `ftp:` or `javascript:` one none can). */
const url = define(
  'string',
  z.union([z.literal(''), z.url({ protocol: /^https?$/, error: msg('options.http_url') }).max(2048)]).transform((value) => value.replace(/\/+$/, '')),
);
/** A host name or IP address, nothing around it (no scheme, port or path): what SMTP connects to. */
const host = define(
  'string',
  z
    .string()
    .trim()
    .max(253)
    .regex(/^$|^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[?[0-9A-Fa-f:.]+\]?$/, msg('options.host')),
);
/** An email address, bare or as `Name <address>`, or empty. */
const mailbox = define(
  'string',
  z
    .string()
    .trim()
    .max(320)
    .regex(/^$|^[^<>\s@]+@[^<>\s@]+\.[^<>\s@]+$|^[^<>]*<[^<>\s@]+@[^<>\s@]+\.[^<>\s@]+>$/, msg('options.mailbox')),
);
const secret = (group: OptionGroup, doc: string) => define('string', z.string().max(4096))(group, '', doc, true);
/** Ratios and prices are bounded, so no price computation can overflow (rule R7). */
const ratioMap = define('json', z.record(z.string().min(1), z.number().min(0).max(1_000_000)));
const nameMap = define('json', z.record(z.string().min(1), z.string()));
const chatList = define('json', z.array(z.record(z.string().min(1), z.string())));
const jsonObject = define('json', z.record(z.string(), z.unknown()));

const defaultModelRatio: Record<string, number> = {
  'gpt-4o': 1.25,
  'gpt-4o-mini': 0.075,
  'gpt-4': 15,
  'gpt-4-turbo': 5,
  'gpt-4.5-preview': 37.5,
  o1: 7.5,
  'o1-preview': 7.5,
  'o1-mini': 0.55,
  'o3-mini': 0.55,
  'gpt-3.5-turbo': 0.25,
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-embedding-ada-002': 0.05,
  'whisper-1': 15,
  'tts-1': 7.5,
  'tts-1-hd': 15,
  'claude-3-5-sonnet-20241022': 1.5,
  'claude-3-7-sonnet-20250219': 1.5,
  'claude-3-opus-20240229': 7.5,
  'claude-3-haiku-20240307': 0.125,
  'claude-3-5-haiku-20241022': 0.5,
  'grok-2': 1,
  'grok-beta': 2.5,
};
const defaultCompletionRatio: Record<string, number> = { 'gpt-4-gizmo-*': 2, 'gpt-4o-gizmo-*': 3, 'gpt-4-all': 2 };
const defaultModelPrice: Record<string, number> = {
  suno_music: 0.1,
  suno_lyrics: 0.01,
  'dall-e-3': 0.04,
  'imagen-3.0-generate-002': 0.03,
  'gpt-4-gizmo-*': 0.1,
  mj_imagine: 0.1,
  mj_variation: 0.1,
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  swap_face: 0.05,
  mj_upload: 0.05,
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  // midjourney-proxy's newer submits (video from an image, image edits), priced like an imagine.
  mj_video: 0.1,
  mj_edits: 0.1,
};
const defaultCacheRatio: Record<string, number> = { 'gpt-4o': 0.5, 'gpt-4o-mini': 0.5, o1: 0.5, 'deepseek-chat': 0.25, 'claude-3-5-sonnet-20241022': 0.1 };
/** The established product's audio ratios (audio input price over text input price). */
const defaultAudioRatio: Record<string, number> = {
  'gpt-4o-realtime-preview': 20,
  'gpt-4o-realtime-preview-2024-12-17': 8,
  'gpt-4o-mini-realtime-preview': 16.67,
  'gpt-4o-audio-preview': 40,
  'gpt-4o-audio-preview-2024-12-17': 16,
  'gpt-4o-mini-audio-preview': 66.67,
};
const chatLink = (app: string) => `${app}/#/?settings={"key":"{key}","url":"{address}"}`;
const defaultChats: Array<Record<string, string>> = [
  { NextChat: chatLink('https://app.nextchat.dev') },
  { LobeChat: 'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}' },
  {
    'AI as Workspace':
      'https://aiaw.app/set-provider?provider={"type":"openai","settings":{"apiKey":"{key}","baseURL":"{address}/v1","compatibility":"strict"}}',
  },
  { AMA: 'ama://set-api-key?server={address}&key={key}' },
  { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
];
const defaultDisableKeywords = [
  'Your credit balance is too low',
  'This organization has been disabled.',
  'You exceeded your current quota',
  'Permission denied',
  'The security token included in the request is invalid',
  'Operation not allowed',
  'Your account is not authorized',
].join('\n');

export const optionDefinitions = {
  // quota
  QuotaPerUnit: positiveNumber('quota', 500000, 'Quota units per 1 USD.'),
  DisplayInCurrencyEnabled: bool('quota', true, 'Show quota as currency (quota / QuotaPerUnit) instead of raw units.'),
  DisplayTokenStatEnabled: bool('quota', true, '/dashboard/billing answers with the token figures instead of the user figures.'),
  QuotaForNewUser: nonNegativeInt('quota', 0, 'Quota granted at registration.'),
  QuotaForInviter: nonNegativeInt('quota', 0, "Added to the inviter's pending invite earnings (aff_quota) per invitee."),
  QuotaForInvitee: nonNegativeInt('quota', 0, 'Added to an invited user at registration.'),
  QuotaRemindThreshold: nonNegativeInt('quota', 1000, 'Low-balance warning threshold, in quota units.'),
  PreConsumedQuota: nonNegativeInt('quota', 500, 'Tokens reserved when a request gives no max_tokens.'),
  // general (operation)
  TopUpLink: url('general', '', 'External recharge link shown on the wallet page.'),
  ChatLink: text('general', '', 'Legacy chat link.'),
  ChatLink2: text('general', '', 'Second legacy chat link.'),
  RetryTimes: define('number', z.number().int().min(0).max(10))('general', 0, 'Extra attempts on another channel after a retryable failure.'),
  DemoSiteEnabled: bool('general', false, 'Demo site mode.'),
  SelfUseModeEnabled: bool('general', false, 'Self-use mode: unpriced models are allowed.'),
  DefaultCollapseSidebar: bool('general', false, 'Console sidebar starts collapsed.'),
  StreamCacheQueueLength: nonNegativeInt('general', 0, 'Stream cache queue length (compatibility; 0 = unbuffered).'),
  // drawing
  DrawingEnabled: bool('drawing', true, 'Midjourney features.'),
  TaskEnabled: bool('drawing', true, 'Async task (Suno) features.'),
  MjNotifyEnabled: bool('drawing', false, "Pass the client's notifyHook to the upstream."),
  MjAccountFilterEnabled: bool('drawing', false, 'Pass accountFilter to the upstream.'),
  MjModeClearEnabled: bool('drawing', false, 'Strip --fast/--relax/--turbo from prompts.'),
  MjForwardUrlEnabled: bool('drawing', true, 'Serve task images through this server.'),
  MjActionCheckSuccessEnabled: bool('drawing', true, 'Follow-up actions need a successful original task.'),
  // sensitive words
  CheckSensitiveEnabled: bool('sensitive', true, 'Sensitive-word filter.'),
  CheckSensitiveOnPromptEnabled: bool('sensitive', true, 'Apply the filter to prompts.'),
  StopOnSensitiveEnabled: bool('sensitive', true, 'Refuse a request that contains a sensitive word.'),
  SensitiveWords: text('sensitive', 'test_sensitive', 'Sensitive words, one per line.'),
  // log
  LogConsumeEnabled: bool('log', true, 'Write consume logs.'),
  LogRetentionDays: nonNegativeInt('log', 0, 'Delete logs older than this many days, daily (0 = keep forever).'),
  // dashboard
  DataExportEnabled: bool('dashboard', true, 'Hourly quota data for the dashboard.'),
  DataExportInterval: define('number', z.number().int().min(1))(
    'dashboard',
    5,
    'Minutes between dashboard data flushes in the established product; kept for compatibility (hourly data is written with each request, so nothing waits for it).',
  ),
  DataExportDefaultTime: define('string', z.enum(['hour', 'day', 'week']))('dashboard', 'hour', 'Default granularity of the dashboard.'),
  // monitoring
  ChannelDisableThreshold: nonNegativeNumber('monitoring', 5, 'Seconds; a channel test slower than this disables the channel (0 = never).'),
  AutomaticDisableChannelEnabled: bool('monitoring', false, 'Disable channels automatically on authentication and quota errors.'),
  AutomaticEnableChannelEnabled: bool('monitoring', false, 'Re-enable automatically disabled channels that pass a test.'),
  ChannelTestFrequency: nonNegativeInt('monitoring', 0, 'Minutes between automatic tests of every enabled and automatically disabled channel (0 = never).'),
  ChannelUpdateFrequency: nonNegativeInt('monitoring', 0, 'Minutes between automatic balance refreshes of every enabled channel (0 = never).'),
  AllowPrivateNetworkUpstreams: bool(
    'monitoring',
    false,
    'The private-network flag a new channel takes when its creator does not set one (each channel has its own, rule R2; changing this changes no existing channel); also lets third-party logins and webhooks reach loopback, private and link-local addresses (rule R1).',
  ),
  AutomaticDisableKeywords: text('monitoring', defaultDisableKeywords, 'Upstream error phrases that disable a channel, one per line.'),
  // chat
  Chats: chatList('chat', defaultChats, '"Open in chat app" links; {key} and {address} are filled in.'),
  // usage limits (docs/architecture.md section 5.9; 0 or absent = unlimited)
  DefaultUserRateLimits: define('json', rateLimitsSchema)(
    'limits',
    {},
    "Each user's requests and tokens per minute and per day and requests at once, unless the user's own limits or the group's say otherwise: {rpm, rpd, tpm, tpd, concurrency}.",
  ),
  GroupRateLimits: define('json', groupRateLimitsSchema)('limits', {}, "Group -> each of its users' limits (over the default, under the user's own)."),
  ModelRateLimits: define('json', modelRateLimitsSchema)(
    'limits',
    {},
    'Model -> the limits of all its use together, with `groups` for the model within a group: {"gpt-4o": {"rpm": 600, "groups": {"vip": {"rpm": 1200}}}}.',
  ),
  ModelRequestRateLimitEnabled: bool(
    'limits',
    false,
    "The established product's per-user request limit: at most Count requests (and SuccessCount successful ones) per DurationMinutes.",
  ),
  ModelRequestRateLimitDurationMinutes: define('number', z.number().int().min(1).max(1440))(
    'limits',
    1,
    'The window of the per-user request limit, in minutes.',
  ),
  ModelRequestRateLimitCount: nonNegativeInt('limits', 0, 'Requests per window per user (0 = unlimited).'),
  ModelRequestRateLimitSuccessCount: nonNegativeInt('limits', 1000, 'Successful requests per window per user (0 = unlimited).'),
  ModelRequestRateLimitGroup: define('json', modelRequestRateLimitGroupSchema)(
    'limits',
    {},
    'Group -> [requests, successful requests] per window, over the two counts above.',
  ),
  // groups
  GroupRatio: ratioMap('group', { default: 1, vip: 1, svip: 1 }, 'Price multiplier per user group.'),
  UserUsableGroups: nameMap('group', { default: 'default group', vip: 'vip group' }, 'Groups users may pick for their tokens, with a description.'),
  TopupGroupRatio: ratioMap('group', { default: 1, vip: 1, svip: 1 }, 'Online top-up price multiplier per user group.'),
  // model ratios
  ModelRatio: ratioMap('ratio', defaultModelRatio, 'Model -> ratio; ratio 1 = $2 per million prompt tokens.'),
  CompletionRatio: ratioMap('ratio', defaultCompletionRatio, 'Model -> completion price multiplier.'),
  ModelPrice: ratioMap('ratio', defaultModelPrice, 'Model -> fixed USD price per call.'),
  CacheRatio: ratioMap('ratio', defaultCacheRatio, 'Model -> multiplier for cached prompt tokens.'),
  CreateCacheRatio: ratioMap('ratio', { 'claude-*': 1.25 }, 'Model -> multiplier for prompt tokens written to the cache (1.25 when absent).'),
  AudioRatio: ratioMap('ratio', defaultAudioRatio, 'Model -> multiplier of audio input tokens over text input tokens (realtime and audio models).'),
  AudioCompletionRatio: ratioMap('ratio', {}, 'Model -> multiplier of audio output tokens over audio input tokens (2 when absent).'),
  // server
  ServerAddress: url('server', 'http://localhost:3000', 'Public base URL used in emails and callbacks.'),
  WorkerUrl: url('server', '', 'Worker proxy for fetching image URLs.'),
  WorkerValidKey: secret('server', 'Key of the worker proxy.'),
  // payment
  PayAddress: url('payment', '', 'Payment gateway base URL.'),
  CustomCallbackAddress: url('payment', '', 'Base URL for payment notify callbacks (default: ServerAddress).'),
  EpayId: text('payment', '', 'Partner id at the payment gateway.'),
  EpayKey: secret('payment', 'Signing key of the payment gateway.'),
  Price: nonNegativeNumber('payment', 7.3, 'Money per 1 USD of quota.'),
  MinTopUp: define('number', z.number().int().min(1))('payment', 1, 'Minimum online top-up, in USD units.'),
  // login and registration
  PasswordLoginEnabled: bool('auth', true, 'Username/password login.'),
  PasswordRegisterEnabled: bool('auth', true, 'Username/password registration.'),
  RegisterEnabled: bool('auth', true, 'New-user registration at all.'),
  EmailVerificationEnabled: bool('email', false, 'Registration needs an email verification code.'),
  EmailDomainRestrictionEnabled: bool('email', false, 'Only whitelisted email domains may register.'),
  EmailDomainWhitelist: text(
    'email',
    'gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com',
    'Comma-separated email domains.',
  ),
  EmailAliasRestrictionEnabled: bool('email', false, "Reject '+' and '.' in the local part of emails."),
  // SMTP
  SMTPServer: host('smtp', '', 'SMTP host.'),
  SMTPPort: define('number', z.number().int().min(1).max(65535))('smtp', 587, 'SMTP port.'),
  SMTPAccount: text('smtp', '', 'SMTP user.'),
  SMTPFrom: mailbox('smtp', '', 'Sender address (else the account, when it is an address).'),
  SMTPToken: secret('smtp', 'SMTP password or token.'),
  SMTPSSLEnabled: bool('smtp', false, 'Implicit TLS.'),
  AllowPrivateNetworkSmtp: bool(
    'smtp',
    false,
    'Let SMTPServer be a loopback, private or link-local address (an internal mail relay); off refuses it when saved and on every connection (rule R1). Apart from AllowPrivateNetworkUpstreams, which is about channels.',
  ),
  // OAuth providers
  GitHubOAuthEnabled: bool('github', false, 'Login with the code-hosting service.'),
  GitHubClientId: text('github', '', 'OAuth client id.'),
  GitHubClientSecret: secret('github', 'OAuth client secret.'),
  LinuxDOOAuthEnabled: bool('linuxdo', false, 'Login with the second OAuth service.'),
  LinuxDOClientId: text('linuxdo', '', 'OAuth client id.'),
  LinuxDOClientSecret: secret('linuxdo', 'OAuth client secret.'),
  'oidc.enabled': bool('oidc', false, 'Login with a generic OIDC provider.'),
  'oidc.client_id': text('oidc', '', 'OIDC client id.'),
  'oidc.client_secret': secret('oidc', 'OIDC client secret.'),
  'oidc.well_known': url('oidc', '', 'OIDC discovery URL.'),
  'oidc.authorization_endpoint': url('oidc', '', 'OIDC authorization endpoint.'),
  'oidc.token_endpoint': url('oidc', '', 'OIDC token endpoint.'),
  'oidc.user_info_endpoint': url('oidc', '', 'OIDC userinfo endpoint.'),
  WeChatAuthEnabled: bool('wechat', false, 'Login through a WeChat server.'),
  WeChatServerAddress: url('wechat', '', 'WeChat server base URL.'),
  WeChatServerToken: secret('wechat', 'WeChat server access token.'),
  WeChatAccountQRCodeImageURL: url('wechat', '', 'QR code image of the official account.'),
  TelegramOAuthEnabled: bool('telegram', false, 'Telegram login widget.'),
  TelegramBotToken: secret('telegram', 'Telegram bot token.'),
  TelegramBotName: text('telegram', '', 'Telegram bot name.'),
  // WxPusher (users' WeChat notices) and the per-user notice limit
  WxPusherAppToken: secret('wxpusher', "The WxPusher application's token (AT_...): binds users' WeChat by QR code and sends their notices."),
  WxPusherBaseUrl: url(
    'wxpusher',
    'https://wxpusher.zjiecode.com',
    "WxPusher's API base URL (its public service; a mirror or proxy of the same API otherwise).",
  ),
  NotifyLimitCount: define('number', z.number().int().min(1).max(1000))(
    'notify',
    2,
    'Notices of one kind one user gets at most per NotificationLimitDurationMinute (the established product: NOTIFY_LIMIT_COUNT); the rest are dropped.',
  ),
  NotificationLimitDurationMinute: define('number', z.number().int().min(1).max(10080))(
    'notify',
    10,
    'The window of NotifyLimitCount, in minutes, counted per user and kind across replicas.',
  ),
  TurnstileCheckEnabled: bool('turnstile', false, 'Human-check widget on login, register, verification and reset.'),
  TurnstileSiteKey: text('turnstile', '', 'Turnstile site key.'),
  TurnstileSecretKey: secret('turnstile', 'Turnstile secret key.'),
  // passkeys (WebAuthn); the established product's `passkey.*` settings
  'passkey.enabled': bool('passkey', false, 'Passkey sign-in, registration and step-up.'),
  'passkey.rp_display_name': define('string', z.string().trim().max(64))('passkey', '', 'Name authenticators show for this site (default: SystemName).'),
  'passkey.rp_id': define(
    'string',
    z
      .string()
      .trim()
      .max(253)
      .regex(/^$|^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/, msg('options.host_name')),
  )('passkey', '', "Relying party id: the site's host name or a parent domain of it (default: the host of ServerAddress)."),
  'passkey.origins': define(
    'string',
    z
      .string()
      .trim()
      .max(4096)
      .refine(
        (value) =>
          value
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean)
            .every((origin) => /^https?:\/\/[^/?#\s]+$/.test(origin)),
        msg('options.origins'),
      ),
  )('passkey', '', 'Origins passkeys are used from, comma-separated (default: the origin of ServerAddress).'),
  'passkey.allow_insecure_origin': bool('passkey', false, 'Accept plain-http origins other than localhost (testing only).'),
  'passkey.user_verification': define('string', z.enum(['required', 'preferred', 'discouraged']))(
    'passkey',
    'preferred',
    'Whether the authenticator must verify the user (PIN, biometrics).',
  ),
  'passkey.attachment_preference': define('string', z.enum(['', 'platform', 'cross-platform']))(
    'passkey',
    '',
    'Authenticators offered at registration: any, built-in (platform) or security keys (cross-platform).',
  ),
  // content (other tab)
  SystemName: define('string', z.string().max(64))('content', PRODUCT_NAME, 'Name shown in the console (a migrated value wins).'),
  Logo: text('content', '', 'Logo URL.'),
  Footer: text('content', '', 'Footer HTML (sanitized by the console).'),
  Notice: text('content', '', 'Notice (markdown).'),
  About: text('content', '', 'About page: markdown, HTML or a URL.'),
  HomePageContent: text('content', '', 'Home page: markdown, HTML or a URL.'),
  // model settings
  'general_setting.docs_link': url('model', 'https://docs.newapi.pro', 'Documentation link.'),
  'global.pass_through_request_enabled': bool('model', false, 'Send the client body to the upstream unchanged.'),
  'claude.default_max_tokens': jsonObject('model', { default: 8192 }, 'Default max_tokens per Claude model.'),
  'gemini.safety_settings': jsonObject('model', { default: 'OFF', HARM_CATEGORY_CIVIC_INTEGRITY: 'BLOCK_NONE' }, 'Gemini safety settings.'),
} satisfies Record<string, OptionDefinition<unknown>>;

export type OptionKey = keyof typeof optionDefinitions;
export type OptionValues = { [K in OptionKey]: (typeof optionDefinitions)[K]['default'] };

export const optionKeys = Object.keys(optionDefinitions) as OptionKey[];

export function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(optionDefinitions, key);
}

/** Keys whose value must never be returned or published. */
export function isSecretOption(key: OptionKey): boolean {
  return optionDefinitions[key].secret;
}

/** The options as one typed object, all defaults. */
export function defaultOptionValues(): OptionValues {
  return Object.fromEntries(optionKeys.map((key) => [key, JSON.parse(JSON.stringify(optionDefinitions[key].default))])) as OptionValues;
}

/** Models, prices and ratios reset by POST /api/option/rest_model_ratio. */
export const modelRatioOptionKeys = [
  'ModelRatio',
  'CompletionRatio',
  'ModelPrice',
  'CacheRatio',
  'CreateCacheRatio',
  'AudioRatio',
  'AudioCompletionRatio',
] as const satisfies OptionKey[];

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Parses a value for `key` from the API (string, number or boolean) or from storage (string).
 * The message names the key and says what was expected, in the catalogue's words (`msg`, worded
 * by `localizeMessage`); a check of the schema that names no message of its own is worded by
 * zod's issue code (`issueMessage`).
 */
export function decodeOptionValue<K extends OptionKey>(key: K, raw: unknown): DecodeResult<OptionValues[K]> {
  const definition = optionDefinitions[key] as OptionDefinition<OptionValues[K]>;
  let candidate: unknown = raw;
  if (definition.kind === 'boolean' && typeof raw === 'string') {
    if (raw !== 'true' && raw !== 'false') return { ok: false, message: `${key}: ${msg('options.expected_boolean')}` };
    candidate = raw === 'true';
  } else if (definition.kind === 'number' && typeof raw === 'string') {
    if (raw.trim() === '' || !Number.isFinite(Number(raw))) return { ok: false, message: `${key}: ${msg('options.expected_number')}` };
    candidate = Number(raw);
  } else if (definition.kind === 'json' && typeof raw === 'string') {
    try {
      candidate = JSON.parse(raw);
    } catch {
      return { ok: false, message: `${key}: ${msg('options.invalid_json')}` };
    }
  } else if (definition.kind === 'string' && (typeof raw === 'number' || typeof raw === 'boolean')) {
    candidate = String(raw);
  }
  const parsed = definition.schema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `.${issue.path.join('.')}` : '';
    return { ok: false, message: `${key}${where}: ${issue ? issueMessage(issue) : msg('validation.invalid')}` };
  }
  return { ok: true, value: parsed.data };
}

/** The stored (and wire) form of a value: booleans as "true"/"false", maps as JSON. */
export function encodeOptionValue(key: OptionKey, value: unknown): string {
  const kind = optionDefinitions[key].kind;
  if (kind === 'json') return JSON.stringify(value);
  return String(value);
}

/** PUT /api/option/ body: one key per call. */
export const updateOptionBodySchema = z.object({
  key: z.string().min(1).max(128),
  value: z.union([z.string().max(1_000_000), z.number(), z.boolean()]),
});
export type UpdateOptionBody = z.infer<typeof updateOptionBodySchema>;

/** One row of GET /api/option/. */
export const optionRowSchema = z.object({ key: z.string(), value: z.string() });
export type OptionRow = z.infer<typeof optionRowSchema>;
