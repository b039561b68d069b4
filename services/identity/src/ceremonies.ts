import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearCookie, readCookie, setCookie, type Kv } from '@aigw/platform';
import { randomString, sha256 } from './domain/secrets.js';

/** How long a half-done sign-in (password accepted, second factor pending) or a passkey ceremony lasts. */
export const CEREMONY_TTL_MS = 5 * 60_000;

/**
 * Short-lived state of a sign-in step or a WebAuthn ceremony, bound to the browser: a random
 * secret in an HttpOnly, SameSite=Strict cookie, the state in the Kv under its sha256 for
 * CEREMONY_TTL_MS. `take` hands the state out once, so each is single use.
 */
export interface Ceremony<State> {
  /** Starts one: sets the cookie on the reply. */
  start(request: FastifyRequest, reply: FastifyReply, state: State): Promise<void>;
  /** The state of this browser's ceremony, left in place (a wrong code may be retried). */
  peek(request: FastifyRequest): Promise<State | null>;
  /** The state, removed: a second call (or another request racing this one) gets null. */
  take(request: FastifyRequest, reply: FastifyReply): Promise<State | null>;
}

export function browserCeremony<State>(kv: Kv, cookie: string): Ceremony<State> {
  const keyOf = (secret: string) => `identity:ceremony:${cookie}:${sha256(secret)}`;
  const secretOf = (request: FastifyRequest) => {
    const secret = readCookie(request, cookie);
    return secret && secret.length <= 64 ? secret : null;
  };
  return {
    async start(request, reply, state) {
      const secret = randomString(43);
      await kv.set(keyOf(secret), JSON.stringify(state), { ttlMs: CEREMONY_TTL_MS });
      setCookie(reply, cookie, secret, { maxAgeSeconds: CEREMONY_TTL_MS / 1000, secure: request.protocol === 'https' });
    },
    async peek(request) {
      const secret = secretOf(request);
      const raw = secret ? await kv.get(keyOf(secret)) : null;
      return raw ? (JSON.parse(raw) as State) : null;
    },
    async take(request, reply) {
      const secret = secretOf(request);
      const raw = secret ? await kv.take(keyOf(secret)) : null;
      clearCookie(reply, cookie);
      return raw ? (JSON.parse(raw) as State) : null;
    },
  };
}

/**
 * A ceremony of a signed-in user (passkey registration, passkey step-up): the state is bound to
 * the user and the session (or the access token's user) instead of a cookie of its own.
 */
export interface UserCeremony<State> {
  start(userId: number, session: string | undefined, state: State): Promise<void>;
  take(userId: number, session: string | undefined): Promise<State | null>;
}

export function userCeremony<State>(kv: Kv, name: string): UserCeremony<State> {
  const keyOf = (userId: number, session: string | undefined) => `identity:ceremony:${name}:${userId}:${session ?? 'token'}`;
  return {
    async start(userId, session, state) {
      await kv.set(keyOf(userId, session), JSON.stringify(state), { ttlMs: CEREMONY_TTL_MS });
    },
    async take(userId, session) {
      const raw = await kv.take(keyOf(userId, session));
      return raw ? (JSON.parse(raw) as State) : null;
    },
  };
}

/** A sign-in whose password was right, waiting for the second factor (POST /api/user/login/2fa). */
export const pendingTwoFactorLogin = (kv: Kv) => browserCeremony<{ user_id: number }>(kv, 'login_2fa');

/** A discoverable passkey sign-in between its begin and finish. */
export const passkeyLoginCeremony = (kv: Kv) => browserCeremony<{ challenge: string }>(kv, 'passkey_login');
