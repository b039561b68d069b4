import { z } from 'zod';
import type { RoutingChannel } from '@aigw/contracts';
import type { AuthorizeTools, ProviderContext, TokenExchange } from '../types.js';
import { ChannelConfigurationError } from '../shared/url.js';

/** The Codex CLI's public OAuth client at OpenAI (no secret: a PKCE client), which the refresh names. */
export const CODEX_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
export const OPENAI_TOKEN_URL = 'https://auth.openai.com/oauth/token';
/** A stored token this close to its expiry is not sent; the relay's exchange renews as early (access-tokens.ts). */
const RENEW_BEFORE_MS = 5 * 60_000;
/** A refreshed token whose lifetime the answer does not say is renewed after this. */
const DEFAULT_TOKEN_LIFETIME_S = 3600;

/**
 * The channel's key, the JSON the established product stores for a ChatGPT account (its Codex
 * OAuth): the access token and the account it acts for, the refresh token, and when the access
 * token expires (`expired`, RFC 3339; the established product also keeps `id_token`, `email`,
 * `last_refresh`, unused here). `token_url` is ours: where the refresh token is exchanged,
 * OpenAI's auth server unless the key names another (a test's loopback fake).
 */
const codexKeySchema = z.object({
  access_token: z.string().trim().min(1),
  account_id: z.string().trim().min(1),
  refresh_token: z.string().trim().nullish(),
  expired: z.string().nullish(),
  token_url: z.string().url().nullish(),
});
export type CodexKey = z.infer<typeof codexKeySchema>;

/** Parsed keys by their text: every call needs the account id, the JSON need not be read each time. */
const parsedKeys = new Map<string, CodexKey>();

export function codexKey(channel: Pick<RoutingChannel, 'id'>, key: string): CodexKey {
  const known = parsedKeys.get(key);
  if (known) return known;
  let json: unknown;
  try {
    json = JSON.parse(key);
  } catch {
    throw new ChannelConfigurationError('channel_key_malformed', `channel ${channel.id} (Codex) needs a JSON key with access_token and account_id`);
  }
  const parsed = codexKeySchema.safeParse(json);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || 'key';
    throw new ChannelConfigurationError('channel_key_malformed', `channel ${channel.id} (Codex): the key lacks a valid ${field}`);
  }
  // Bounded by the channels there are; a rotated key leaves its old entry until the map is full.
  if (parsedKeys.size >= 1_000) parsedKeys.clear();
  parsedKeys.set(key, parsed.data);
  return parsed.data;
}

/** The claims of a JWT (OpenAI's access tokens are), read without checking the signature: only OpenAI can, and only its expiry is wanted. */
function jwtClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** When an access token expires (epoch ms): its `exp` claim, else the key's `expired`; null when neither says. */
export function accessTokenExpiry(token: string, expired?: string | null): number | null {
  const exp = jwtClaims(token)?.exp;
  if (typeof exp === 'number' && Number.isFinite(exp)) return exp * 1000;
  const stated = expired ? Date.parse(expired) : NaN;
  return Number.isFinite(stated) ? stated : null;
}

const tokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive().nullish() });

/**
 * The refresh at OpenAI's token endpoint, as the Codex CLI and the established product do it: a
 * form post of `grant_type=refresh_token`, the refresh token and the Codex client id. The answer
 * is `{access_token, refresh_token, id_token, expires_in?}`. OpenAI rotates refresh tokens: the
 * new one is not written back into the channel's key (the relay cannot change a key), so the
 * relay's cached access token serves until it expires and the stored key then needs a new login.
 */
export function codexTokenExchange(context: Pick<ProviderContext, 'channel' | 'key'>): TokenExchange {
  const key = codexKey(context.channel, context.key);
  if (!key.refresh_token) {
    throw new ChannelConfigurationError(
      'channel_key_expired',
      `channel ${context.channel.id} (Codex): the access token has expired and the key has no refresh_token`,
    );
  }
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: key.refresh_token, client_id: CODEX_CLIENT_ID });
  return {
    scope: '',
    request: {
      method: 'POST',
      url: key.token_url ?? OPENAI_TOKEN_URL,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    },
    parse(json, now) {
      const answer = tokenSchema.safeParse(json);
      if (!answer.success) throw new Error('the token endpoint answered the refresh without an access_token');
      const token = answer.data.access_token;
      const expiresAt = answer.data.expires_in ? now + answer.data.expires_in * 1000 : (accessTokenExpiry(token) ?? now + DEFAULT_TOKEN_LIFETIME_S * 1000);
      return { token, expiresAt };
    },
  };
}

/**
 * The token a call carries: the stored access token while it is good for five more minutes (or
 * says nothing of its expiry), else one the relay refreshed and caches for the channel.
 */
export async function codexAccessToken(context: Pick<ProviderContext, 'channel' | 'key'>, tools: AuthorizeTools, now = Date.now()): Promise<string> {
  const key = codexKey(context.channel, context.key);
  const expiry = accessTokenExpiry(key.access_token, key.expired);
  if (expiry === null || expiry - RENEW_BEFORE_MS > now) return key.access_token;
  return tools.accessToken(codexTokenExchange(context));
}
