import { LessThan, type DataSource } from 'typeorm';
import { UserStatus, type AuthPrincipal } from '@aigw/contracts';
import type { Bus } from '@aigw/platform';
import { SessionEntity } from './entities/session.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { passwordChangeRequired } from './domain/factory-password.js';
import { randomString, sha256 } from './domain/secrets.js';
import { publishSessionRevoked } from './events.js';

/** Sessions live 30 days, like the established product's cookie. */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

export interface SessionStore {
  /** Creates a session; returns the secret for the cookie (only its hash is stored). */
  create(userId: number): Promise<{ secret: string; hash: string }>;
  /** Deletes one session; returns its owner, if it existed. */
  revoke(secret: string): Promise<{ userId: number; hash: string } | null>;
  /** Deletes every session of a user, but `keepHash` if given. */
  revokeAll(userId: number, keepHash?: string): Promise<void>;
  /** The principal behind a session cookie or an access token; null when invalid, expired, banned or deregistered. */
  resolve(kind: 'session' | 'access_token', secret: string): Promise<AuthPrincipal | null>;
  /** Deletes expired rows. */
  sweep(): Promise<number>;
}

export interface SessionStoreOptions {
  /** The server listens beyond loopback: a root with the factory password must change it first (rule R8). */
  reachableBeyondLoopback: boolean;
}

export function createSessionStore(db: DataSource, options: SessionStoreOptions): SessionStore {
  const sessions = db.getRepository(SessionEntity);
  const users = db.getRepository(UserEntity);
  const principal = (user: UserEntity | null): AuthPrincipal | null => {
    if (!user || user.deleted_at !== null || user.status !== UserStatus.Enabled) return null;
    return {
      user_id: user.id,
      username: user.username,
      role: user.role,
      status: user.status,
      group: user.group,
      password_change_required: passwordChangeRequired(user, options.reachableBeyondLoopback),
    };
  };
  return {
    async create(userId) {
      const secret = randomString(43);
      const hash = sha256(secret);
      const now = Date.now();
      await sessions.insert({ id_hash: hash, user_id: userId, created_at: now, expires_at: now + SESSION_TTL_MS });
      return { secret, hash };
    },
    async revoke(secret) {
      const hash = sha256(secret);
      const session = await sessions.findOneBy({ id_hash: hash });
      if (!session) return null;
      await sessions.delete({ id_hash: hash });
      return { userId: session.user_id, hash };
    },
    async revokeAll(userId, keepHash) {
      const query = sessions.createQueryBuilder().delete().where('user_id = :userId', { userId });
      if (keepHash) query.andWhere('id_hash <> :keepHash', { keepHash });
      await query.execute();
    },
    async resolve(kind, secret) {
      const hash = sha256(secret);
      if (kind === 'access_token') return principal(await users.findOneBy({ access_token_hash: hash }));
      const session = await sessions.findOneBy({ id_hash: hash });
      if (!session || session.expires_at <= Date.now()) return null;
      return principal(await users.findOneBy({ id: session.user_id }));
    },
    async sweep() {
      const result = await sessions.delete({ expires_at: LessThan(Date.now()) });
      return result.affected ?? 0;
    },
  };
}

/**
 * Ends every session of a user but `keepHash` (the one that made the change), and tells every
 * gateway, whose credential caches then drop the user's sessions and access token.
 */
export async function endSessions(context: { sessions: SessionStore; bus: Bus }, userId: number, keepHash?: string): Promise<void> {
  await context.sessions.revokeAll(userId, keepHash);
  await publishSessionRevoked(context.bus, userId, null);
}
