import { z } from 'zod';
import { msg, type MessageId, type OptionKey } from '@aigw/contracts';
import { createEgressClient, EgressBlockedError, EgressError, UserError, type EgressClient, type Logger } from '@aigw/platform';
import type { OptionStore } from './options-store.js';
import type { BindingColumn } from './users.js';

/**
 * The third-party logins' outbound half (docs/compatibility.md section 5): trade a code for the
 * provider's account. Every call goes through the egress client (rule R1); every answer is parsed
 * leniently; every failure becomes a UserError whose message the console can show (no stack, no
 * secret): the provider's own words, or the catalogue's about what went wrong on the way.
 */

/** Where GitHub and LinuxDO live. Fixed in production; only tests point them at a loopback fake (a plugin option, never a setting). */
export interface OAuthEndpoints {
  /** The token exchange (`/login/oauth/access_token`). */
  github: string;
  /** The user (`/user`). */
  githubApi: string;
  /** Token (`/oauth2/token`) and user (`/api/user`). */
  linuxdo: string;
}

export const defaultOAuthEndpoints: OAuthEndpoints = {
  github: 'https://github.com',
  githubApi: 'https://api.github.com',
  linuxdo: 'https://connect.linux.do',
};

/** A sign-in would wait at most about this long on a provider; their answers are small documents. */
const egressLimits = { connectTimeoutMs: 5_000, headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, keepAliveTimeoutMs: 30_000 };
const MAX_ANSWER_BYTES = 64 * 1024;
/** GitHub's API refuses calls without a User-Agent. */
const USER_AGENT = 'aigw-identity';

/** The pool third-party logins use; private addresses follow the same root option as the channels. */
export function createOAuthEgress(allowPrivateNetwork: () => boolean): EgressClient {
  return createEgressClient({ allowPrivateNetwork, ...egressLimits });
}

/** A third-party account as its provider describes it. */
export interface ExternalAccount {
  /** What the binding column stores (at most 64 characters, the column's size). */
  id: string;
  /** A username the provider suggests (OIDC's preferred_username). */
  username?: string;
  displayName?: string;
}

export interface ProviderContext {
  egress: EgressClient;
  options: OptionStore;
  logger: Logger;
  endpoints: OAuthEndpoints;
}

/** One way to sign in with an outside account: its switch, its column and its new users' names. */
export interface ExternalLogin {
  /** The provider's name in messages. */
  label: string;
  enabledOption: OptionKey;
  column: BindingColumn;
  /** New users are named `<prefix>_<n>` (docs/compatibility.md section 5). */
  usernamePrefix: string;
}

export interface OAuthProvider extends ExternalLogin {
  /** Trades an authorization code for the account behind it. */
  account(code: string, context: ProviderContext): Promise<ExternalAccount>;
}

const accountId = z.union([z.string(), z.number().int()]).transform(String).pipe(z.string().min(1).max(64));
const optionalText = z
  .string()
  .nullish()
  .transform((value) => value || undefined);

/** Where providers put an error: OAuth's `error_description`/`error`, or a plain `message`. */
const errorText = z.string().optional().catch(undefined);
const providerErrorSchema = z.object({ error_description: errorText, error: errorText, message: errorText });
const tokenSchema = z.object({ access_token: z.string().min(1) });
const githubUserSchema = z.object({ login: accountId, name: optionalText });
const linuxdoUserSchema = z.object({ id: accountId, name: optionalText });
const oidcUserSchema = z.object({ sub: accountId, preferred_username: optionalText, name: optionalText });
const oidcDiscoverySchema = z.object({ token_endpoint: optionalText, userinfo_endpoint: optionalText });
/** The WeChat server answers the envelope: data is the WeChat id. */
const wechatAnswerSchema = z.object({ success: z.boolean(), message: optionalText, data: z.union([z.string(), z.number()]).nullish() });

/** A message fit for the user: the provider's words without any secret, on one short line. */
function failure(label: string, detail: string, secrets: readonly string[]): UserError {
  let text = detail.replace(/\s+/g, ' ').trim();
  // Also as it travels in a form body or a query, in case the provider echoes what it was sent.
  const forms = secrets.filter(Boolean).flatMap((secret) => [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)]);
  for (const secret of forms) text = text.split(secret).join('***');
  return new UserError(msg('oauth.login_failed', { provider: label, detail: text.slice(0, 200) }));
}

/** Why a provider was not reached, in the catalogue's words (the address and the blocked range stay in the log). */
function unreachable(label: string, error: unknown): UserError {
  let id: MessageId = 'oauth.provider_network';
  if (error instanceof EgressBlockedError) id = 'oauth.provider_blocked';
  else if (error instanceof EgressError) {
    if (error.kind.endsWith('timeout')) id = 'oauth.provider_timeout';
    else if (error.kind === 'connection_refused') id = 'oauth.provider_refused';
    else if (error.kind === 'dns') id = 'oauth.provider_dns';
    else if (error.kind === 'too_large') id = 'oauth.provider_too_large';
  }
  return new UserError(msg(id, { provider: label }));
}

function providerMessage(data: unknown): string | undefined {
  const parsed = providerErrorSchema.safeParse(data);
  return parsed.success ? parsed.data.error_description || parsed.data.message || parsed.data.error : undefined;
}

interface ProviderCall {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** One JSON call to a provider; a 2xx JSON answer or a UserError. */
async function callProvider(context: ProviderContext, label: string, call: ProviderCall, secrets: readonly string[]): Promise<unknown> {
  let answer;
  try {
    answer = await context.egress.fetchJson(
      call.url,
      {
        method: call.method ?? 'GET',
        headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...call.headers },
        body: call.body,
      },
      { maxBytes: MAX_ANSWER_BYTES },
    );
  } catch (error) {
    // The details (address, blocked range) are for the administrator's log, not the visitor.
    context.logger.warn({ provider: label, error: error instanceof Error ? error.message : String(error) }, 'third-party login: provider not reached');
    throw unreachable(label, error);
  }
  if (answer.statusCode < 200 || answer.statusCode >= 300 || answer.data === undefined) {
    const said = providerMessage(answer.data);
    throw said ? failure(label, said, secrets) : new UserError(msg('oauth.provider_http_status', { provider: label, status: String(answer.statusCode) }));
  }
  return answer.data;
}

function parse<T>(schema: z.ZodType<T>, data: unknown, label: string, secrets: readonly string[]): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const said = providerMessage(data);
    throw said ? failure(label, said, secrets) : new UserError(msg('oauth.provider_unexpected', { provider: label }));
  }
  return parsed.data;
}

/** Posts the code to a token endpoint; GitHub answers 200 with `error` for a bad code, hence the parse. */
async function accessToken(context: ProviderContext, label: string, call: ProviderCall, secrets: readonly string[]): Promise<string> {
  return parse(tokenSchema, await callProvider(context, label, { method: 'POST', ...call }, secrets), label, secrets).access_token;
}

/** The callback the console registered with the provider (it must match the authorization request's). */
const callbackUrl = (options: OptionStore, provider: string) => `${options.get('ServerAddress')}/oauth/${provider}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

const github: OAuthProvider = {
  label: 'GitHub',
  enabledOption: 'GitHubOAuthEnabled',
  column: 'github_id',
  usernamePrefix: 'github',
  async account(code, context) {
    const { options, endpoints } = context;
    const secrets = [options.get('GitHubClientSecret')];
    const token = await accessToken(
      context,
      'GitHub',
      {
        url: `${endpoints.github}/login/oauth/access_token`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: options.get('GitHubClientId'), client_secret: secrets[0], code }),
      },
      secrets,
    );
    const user = parse(
      githubUserSchema,
      await callProvider(context, 'GitHub', { url: `${endpoints.githubApi}/user`, headers: { authorization: `Bearer ${token}` } }, secrets),
      'GitHub',
      secrets,
    );
    // The established product binds the login name, not the numeric id.
    return { id: user.login, displayName: user.name };
  },
};

const linuxdo: OAuthProvider = {
  label: 'LinuxDO',
  enabledOption: 'LinuxDOOAuthEnabled',
  column: 'linux_do_id',
  usernamePrefix: 'linuxdo',
  async account(code, context) {
    const { options, endpoints } = context;
    const secrets = [options.get('LinuxDOClientSecret')];
    const basic = Buffer.from(`${options.get('LinuxDOClientId')}:${secrets[0]}`).toString('base64');
    secrets.push(basic);
    const token = await accessToken(
      context,
      'LinuxDO',
      {
        url: `${endpoints.linuxdo}/oauth2/token`,
        headers: { ...FORM, authorization: `Basic ${basic}` },
        body: formBody({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl(options, 'linuxdo') }),
      },
      secrets,
    );
    const user = parse(
      linuxdoUserSchema,
      await callProvider(context, 'LinuxDO', { url: `${endpoints.linuxdo}/api/user`, headers: { authorization: `Bearer ${token}` } }, secrets),
      'LinuxDO',
      secrets,
    );
    return { id: user.id, displayName: user.name };
  },
};

/** The token and userinfo endpoints: the options, or the discovery document for those left empty. */
async function oidcEndpoints(context: ProviderContext, secrets: readonly string[]): Promise<{ token: string; userInfo: string }> {
  const { options } = context;
  let token = options.get('oidc.token_endpoint');
  let userInfo = options.get('oidc.user_info_endpoint');
  const wellKnown = options.get('oidc.well_known');
  if ((!token || !userInfo) && wellKnown) {
    // Sign-ins are rare, so the document is read each time rather than cached: a moved endpoint is picked up at once.
    const discovered = parse(oidcDiscoverySchema, await callProvider(context, 'OIDC', { url: wellKnown }, secrets), 'OIDC', secrets);
    token ||= discovered.token_endpoint ?? '';
    userInfo ||= discovered.userinfo_endpoint ?? '';
  }
  if (!token || !userInfo) throw new UserError(msg('oauth.oidc_endpoints_missing'));
  return { token, userInfo };
}

const oidc: OAuthProvider = {
  label: 'OIDC',
  enabledOption: 'oidc.enabled',
  column: 'oidc_id',
  usernamePrefix: 'oidc',
  async account(code, context) {
    const { options } = context;
    const secrets = [options.get('oidc.client_secret')];
    const endpoints = await oidcEndpoints(context, secrets);
    const token = await accessToken(
      context,
      'OIDC',
      {
        url: endpoints.token,
        headers: FORM,
        body: formBody({
          client_id: options.get('oidc.client_id'),
          client_secret: secrets[0]!,
          code,
          grant_type: 'authorization_code',
          redirect_uri: callbackUrl(options, 'oidc'),
        }),
      },
      secrets,
    );
    const user = parse(
      oidcUserSchema,
      await callProvider(context, 'OIDC', { url: endpoints.userInfo, headers: { authorization: `Bearer ${token}` } }, secrets),
      'OIDC',
      secrets,
    );
    return { id: user.sub, username: user.preferred_username, displayName: user.name };
  },
};

/** The callbacks `/api/oauth/<name>?code=&state=`. */
export const oauthProviders = { github, linuxdo, oidc } satisfies Record<string, OAuthProvider>;

export const wechatLogin: ExternalLogin = { label: 'WeChat', enabledOption: 'WeChatAuthEnabled', column: 'wechat_id', usernamePrefix: 'wechat' };

/** The WeChat id behind a code the user read from the official account (via the WeChat server). */
export async function wechatAccount(code: string, context: ProviderContext): Promise<ExternalAccount> {
  const { options } = context;
  const secrets = [options.get('WeChatServerToken')];
  const url = `${options.get('WeChatServerAddress')}/api/wechat/user?code=${encodeURIComponent(code)}`;
  const answer = parse(wechatAnswerSchema, await callProvider(context, 'WeChat', { url, headers: { authorization: secrets[0]! } }, secrets), 'WeChat', secrets);
  const id = answer.success ? accountId.safeParse(answer.data) : undefined;
  if (!id?.success) throw answer.message ? failure('WeChat', answer.message, secrets) : new UserError(msg('oauth.wechat_code_wrong'));
  return { id: id.data };
}
