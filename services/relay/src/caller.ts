import { parseSkKey, Role, TokenStatus, UserStatus, type DrawingMode, type ResolvedToken, type RateLimits } from '@aigw/contracts';
import { announcesBody, clientIpOf, compileAllowList, compileDenyList } from '@aigw/platform';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { RelayError } from './errors.js';
import type { TokenCache } from './token-cache.js';

/** Who is calling the relay, after every check of the token (docs/compatibility.md section 3.1). */
export interface Caller {
  userId: number;
  /** 0 for the playground (bills the user only). */
  tokenId: number;
  tokenName: string;
  unlimitedToken: boolean;
  group: string;
  /** Models the token is limited to, or null. */
  modelLimits: ReadonlySet<string> | null;
  /** An admin's `sk-<key>-<channelId>`: this channel only, never retried elsewhere. */
  pinnedChannelId: number | null;
  /** The key's own usage limits (docs/architecture.md section 5.9). */
  tokenLimits: RateLimits;
  /** The owner's own limits (the group's and the default fill the fields these leave unset). */
  userLimits: RateLimits;
  /** The text a refusal by the key's own limits answers with; absent or '' (the playground, no key): the default text. */
  rateLimitMessage?: string;
  /** The Midjourney modes the key may draw in; absent or null: every mode (docs/architecture.md section 5.11). */
  drawingModes?: ReadonlySet<DrawingMode> | null;
}

/**
 * The sk- key from the request: Authorization Bearer, x-api-key (Anthropic-style clients),
 * mj-api-secret (midjourney-proxy clients), or on
 * Gemini's routes and the model list x-goog-api-key or `?key=` (Google's clients). Only route patterns are ever
 * logged, so a key in the query does not reach the logs.
 */
function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) return header;
  for (const raw of [request.headers['x-api-key'], request.headers['x-goog-api-key'], request.headers['mj-api-secret']])
    if (typeof raw === 'string' && raw.length > 0) return raw;
  if (request.url.startsWith('/v1beta/') || request.url.startsWith('/v1/models')) {
    const key = (request.query as { key?: unknown } | undefined)?.key;
    if (typeof key === 'string' && key.length > 0) return key;
  }
  return null;
}

export async function authenticateToken(request: FastifyRequest, tokens: TokenCache): Promise<Caller> {
  const presented = presentedKey(request);
  if (!presented) throw new RelayError(401, 'no API key provided (Authorization: Bearer sk-...)', 'invalid_api_key', 'authentication_error');
  // A malformed key never reaches a lookup; `sk-<key>-<channelId>` pins a channel (admins only).
  const parsed = parseSkKey(presented);
  const token = parsed ? await tokens.resolve(parsed.key) : null;
  if (!parsed || !token) throw new RelayError(401, 'invalid API key', 'invalid_api_key', 'authentication_error');
  checkToken(token, clientIpOf(request));
  if (parsed.channelId !== undefined && token.owner_role < Role.Admin) {
    throw new RelayError(403, 'ordinary users cannot pick a channel', 'channel_pin_forbidden', 'permission_error');
  }
  return {
    userId: token.user_id,
    tokenId: token.token_id,
    tokenName: token.name,
    unlimitedToken: token.unlimited_quota,
    group: token.group,
    modelLimits: token.model_limits_enabled ? new Set(token.model_limits) : null,
    pinnedChannelId: parsed.channelId ?? null,
    tokenLimits: token.rate_limits,
    userLimits: token.owner_rate_limits,
    rateLimitMessage: token.rate_limit_message,
    drawingModes: token.drawing_modes.length > 0 ? new Set(token.drawing_modes) : null,
  };
}

/** Each cached token's lists, compiled once (a token event replaces the object, and with it these). */
const allowLists = new WeakMap<ResolvedToken, ReturnType<typeof compileAllowList>>();
const denyLists = new WeakMap<ResolvedToken, ReturnType<typeof compileDenyList>>();

function checkToken(token: ResolvedToken, ip: string): void {
  if (token.owner_status !== UserStatus.Enabled) throw new RelayError(403, 'the user is banned or deregistered', 'user_disabled', 'permission_error');
  if (token.status === TokenStatus.Expired || (token.expired_time !== -1 && token.expired_time * 1000 <= Date.now())) {
    throw new RelayError(401, 'the API key has expired', 'token_expired', 'authentication_error');
  }
  if (token.status === TokenStatus.Disabled) throw new RelayError(401, 'the API key is disabled', 'token_disabled', 'authentication_error');
  // The deny list first: an address on both lists is refused.
  if (token.deny_ips.length > 0) {
    let denied = denyLists.get(token);
    if (!denied) denyLists.set(token, (denied = compileDenyList(token.deny_ips)));
    if (denied(ip)) throw new RelayError(403, `the API key may not be used from ${ip}: the address is on its deny list`, 'ip_denied', 'permission_error');
  }
  if (token.allow_ips.length > 0) {
    let allowed = allowLists.get(token);
    if (!allowed) allowLists.set(token, (allowed = compileAllowList(token.allow_ips)));
    if (!allowed(ip)) throw new RelayError(403, `the API key may not be used from ${ip}`, 'ip_not_allowed', 'permission_error');
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller `requireApiKey` authenticated (read it with `callerOf`). On the request, not in a
     * WeakMap keyed by it: V8's young-generation collections keep a WeakMap's values alive, so
     * every request's caller was promoted (docs/architecture.md section 5).
     */
    relayCaller: Caller | null;
  }
}

/**
 * The onRequest hook of every sk- key route: the key is checked from the headers as the request
 * arrives, so a missing, unknown or refused key is answered (401/403 in the route's shape)
 * before a byte of the body is read (docs/architecture.md section 6.6).
 */
export function requireApiKey(tokens: TokenCache): onRequestAsyncHookHandler {
  return async (request, reply) => {
    try {
      request.relayCaller = await authenticateToken(request, tokens);
    } catch (error) {
      // The body stays unread: close rather than let Node read the rest to reuse the connection.
      if (announcesBody(request.headers)) reply.header('connection', 'close');
      throw error;
    }
  };
}

/** The caller `requireApiKey` authenticated for this request. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = request.relayCaller;
  if (!caller) throw new Error(`route ${request.routeOptions.url ?? request.url} reads the caller without requireApiKey`);
  return caller;
}

/** The model limits of the token (docs/compatibility.md section 3.1). */
export function checkModelAllowed(caller: Caller, model: string): void {
  if (caller.modelLimits && !caller.modelLimits.has(model)) {
    throw new RelayError(403, `the API key may not use the model ${model}`, 'model_not_allowed', 'permission_error');
  }
}
