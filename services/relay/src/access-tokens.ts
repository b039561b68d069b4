import { createHash } from 'node:crypto';
import type { RoutingChannel } from '@aigw/contracts';
import type { EgressClient, Logger } from '@aigw/platform';
import { channelEgress } from './channel-egress.js';
import type { AuthorizeTools, TokenExchange } from './providers/types.js';

/** A token is renewed this long before it expires, so no request leaves with one about to lapse. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** A token exchange answers within this, or the request fails over like any unreachable upstream. */
const EXCHANGE_TIMEOUT_MS = 15_000;

export interface AccessTokens {
  /** The tools a provider's `authorize` gets for one channel and key. */
  for(channel: RoutingChannel, key: string): AuthorizeTools;
  /** Drops the channel's cached tokens for this key: the upstream refused one before it expired. */
  forget(channel: RoutingChannel, key: string): void;
}

interface Cached {
  token: string;
  expiresAt: number;
}

/**
 * Access tokens of the channels whose providers exchange a credential for one (Vertex AI's
 * service-account JWT, Baidu's key and secret): kept in memory per channel, key and scope until
 * shortly before they expire, so one exchange serves every request meanwhile; requests arriving
 * while an exchange runs wait for it rather than starting their own. A new key is a new cache
 * entry (the key's hash is part of the name), so a rotated key never uses the old token.
 */
export function createAccessTokens(egress: EgressClient, logger: Logger, now: () => number = Date.now): AccessTokens {
  const cache = new Map<string, Cached>();
  const running = new Map<string, Promise<Cached>>();

  async function exchange(channel: RoutingChannel, exchange: TokenExchange): Promise<Cached> {
    const request = typeof exchange.request === 'function' ? await exchange.request() : exchange.request;
    const answer = await egress.fetchJson(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      ...channelEgress(channel),
    });
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      throw new AccessTokenError(channel.id, `the token exchange answered HTTP ${answer.statusCode}`, answer.statusCode);
    }
    return exchange.parse(answer.data, now());
  }

  const prefixOf = (channel: RoutingChannel, key: string) => `${channel.id}:${createHash('sha256').update(key).digest('hex').slice(0, 16)}:`;
  return {
    forget(channel, key) {
      const prefix = prefixOf(channel, key);
      for (const name of cache.keys()) if (name.startsWith(prefix)) cache.delete(name);
    },
    for(channel, key) {
      const prefix = prefixOf(channel, key);
      return {
        async accessToken(request) {
          const name = `${prefix}${request.scope}`;
          const cached = cache.get(name);
          if (cached && cached.expiresAt - RENEW_BEFORE_MS > now()) return cached.token;
          let pending = running.get(name);
          if (!pending) {
            pending = exchange(channel, request).finally(() => running.delete(name));
            running.set(name, pending);
          }
          try {
            const fresh = await pending;
            cache.set(name, fresh);
            return fresh.token;
          } catch (error) {
            logger.warn({ err: error, channelId: channel.id }, 'access token exchange failed');
            throw error instanceof AccessTokenError ? error : new AccessTokenError(channel.id, (error as Error).message);
          }
        },
      };
    },
  };
}

/** The channel's credential could not be exchanged for a token: the attempt fails like an unreachable upstream. */
export class AccessTokenError extends Error {
  readonly code = 'upstream_auth_exchange_failed';
  constructor(
    readonly channelId: number,
    message: string,
    /** The token endpoint's HTTP status; 0 when it did not answer. */
    readonly status = 0,
  ) {
    super(message);
    this.name = 'AccessTokenError';
  }
}
