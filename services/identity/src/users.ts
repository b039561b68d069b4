import type { DataSource, EntityManager } from 'typeorm';
import { localeFromAcceptLanguage, Role, UserStatus, type User, type UserBalance, type UserRow } from '@aigw/contracts';
import { isUniqueViolation, UserError } from '@aigw/platform';
import { UserEntity } from './entities/user.entity.js';
import { randomString } from './domain/secrets.js';

/** The API view of a user: a whitelist of fields (rule R4), balances from billing. */
export function toUserView(user: UserEntity, balance: UserBalance): User {
  return { ...profileView(user), ...balance };
}

/** The figures of an admin row whose balance billing did not answer for: unknown, not 0. */
const unknownBalance = { quota: null, used_quota: null, request_count: null, aff_count: null, aff_quota: null, aff_history_quota: null };

/** A user row of the admin views: as `toUserView`, with every balance figure null while it is unknown. */
export function toUserRow(user: UserEntity, balance: UserBalance | null): UserRow {
  return { ...profileView(user), ...(balance ?? unknownBalance) };
}

function profileView(user: UserEntity): Omit<User, keyof UserBalance> {
  return {
    id: user.id,
    username: user.username,
    display_name: user.display_name,
    email: user.email,
    github_id: user.github_id,
    wechat_id: user.wechat_id,
    telegram_id: user.telegram_id,
    linux_do_id: user.linux_do_id,
    role: user.role,
    status: user.status,
    group: user.group,
    aff_code: user.aff_code,
    inviter_id: user.inviter_id,
    DeletedAt: user.deleted_at === null ? null : new Date(user.deleted_at).toISOString(),
  };
}

/** The columns that hold a third-party account bound to a user. */
export type BindingColumn = 'github_id' | 'linux_do_id' | 'oidc_id' | 'wechat_id' | 'telegram_id';

export interface NewUser {
  username: string;
  passwordHash: string;
  displayName?: string;
  email?: string;
  role?: number;
  inviterId?: number;
  passwordIsDefault?: boolean;
  /** The console language it registered with (see `languageOf`); '' when unknown. */
  language?: string;
  /** Third-party accounts bound from the start (a registration through that login). */
  bindings?: Partial<Record<BindingColumn, string>>;
}

/** The language a request's Accept-Language asks for ('zh-CN' or 'en-US'), or '' when it sends none. */
export function languageOf(acceptLanguage: string | undefined): string {
  return acceptLanguage?.trim() ? localeFromAcceptLanguage(acceptLanguage) : '';
}

/**
 * Inserts a user with a fresh 4-character invite code. Username and email are unique against
 * every user, deregistered ones included; a clash becomes a UserError naming the field.
 */
export async function insertUser(manager: EntityManager, input: NewUser): Promise<UserEntity> {
  if (await manager.existsBy(UserEntity, { username: input.username })) throw new UserError('username: already taken');
  if (input.email && (await manager.existsBy(UserEntity, { email: input.email }))) throw new UserError('email: already used');
  for (let attempt = 0; ; attempt++) {
    const user = manager.create(UserEntity, {
      username: input.username,
      display_name: input.displayName || input.username,
      password_hash: input.passwordHash,
      password_is_default: input.passwordIsDefault ?? false,
      email: input.email ?? '',
      role: input.role ?? Role.Common,
      status: UserStatus.Enabled,
      group: 'default',
      aff_code: randomString(attempt < 5 ? 4 : 8),
      inviter_id: input.inviterId ?? 0,
      language: input.language ?? '',
      ...input.bindings,
      access_token_hash: null,
      created_at: Date.now(),
      deleted_at: null,
    });
    try {
      return await manager.save(UserEntity, user);
    } catch (error) {
      // A concurrent registration took the username or email, or the invite code collided.
      if (!isUniqueViolation(error)) throw error;
      if (await manager.existsBy(UserEntity, { username: input.username })) throw new UserError('username: already taken');
      if (input.email && (await manager.existsBy(UserEntity, { email: input.email }))) throw new UserError('email: already used');
      if (attempt > 8) throw error;
    }
  }
}

/** A user by username or email, deregistered users excluded. */
export async function findLoginUser(db: DataSource, login: string): Promise<UserEntity | null> {
  const user = await db.getRepository(UserEntity).findOne({ where: login.includes('@') ? [{ email: login }, { username: login }] : { username: login } });
  return user && user.deleted_at === null ? user : null;
}
