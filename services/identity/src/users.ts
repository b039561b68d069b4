import { IsNull, Not, type DataSource, type EntityManager } from 'typeorm';
import {
  localeFromAcceptLanguage,
  msg,
  normalizeUsername,
  parseRateLimits,
  Role,
  USERNAME_MAX,
  usernameKey,
  usernameProblem,
  UserStatus,
  type User,
  type UserBalance,
  type UserRow,
} from '@aigw/contracts';
import { isUniqueViolation, UnauthorizedError, UserError } from '@aigw/platform';
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
    rate_limits: parseRateLimits(user.rate_limits),
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

/** Taken regardless of case and width: "ROOT" is as taken as "root". */
const usernameTakenError = () => new UserError(`username: ${msg('users.username_taken')}`, 'invalid_request', 200, 'username');
const emailUsedError = () => new UserError(`email: ${msg('users.email_taken')}`, 'invalid_request', 200, 'email');

/** Whether another user than `exceptUserId`, deregistered ones included, has this email. */
function emailTaken(manager: EntityManager, email: string, exceptUserId?: number): Promise<boolean> {
  return manager.existsBy(UserEntity, { email, ...(exceptUserId === undefined ? {} : { id: Not(exceptUserId) }) });
}

/** Refuses an email another user than `exceptUserId` has, naming the field. */
export async function ensureEmailFree(manager: EntityManager, email: string, exceptUserId?: number): Promise<void> {
  if (await emailTaken(manager, email, exceptUserId)) throw emailUsedError();
}

/**
 * Whether a name is held by another user (deregistered ones included) regardless of case and
 * width: by the unique key column, and among the few rows whose key is null (names that clashed
 * by case before the column existed), by their computed key.
 */
export async function usernameTaken(manager: EntityManager, name: string, exceptUserId?: number): Promise<boolean> {
  const key = usernameKey(name);
  const other = exceptUserId === undefined ? {} : { id: Not(exceptUserId) };
  if (await manager.existsBy(UserEntity, { username_key: key, ...other })) return true;
  const unkeyed = await manager.find(UserEntity, { select: { id: true, username: true }, where: { username_key: IsNull(), ...other } });
  return unkeyed.some((user) => usernameKey(user.username) === key);
}

/**
 * The stored form of a name a user is being given (a rename, or a name a third-party login
 * suggested): NFKC-normalised and held to the rules of contracts' username.ts, refused with a
 * UserError saying why ("username: ...") or when another user holds it.
 */
export async function acceptNewUsername(manager: EntityManager, requested: string, exceptUserId?: number): Promise<string> {
  const name = normalizeUsername(requested);
  if (!name) throw new UserError(msg('users.username_required'), 'invalid_request', 200, 'username');
  if (name.length > USERNAME_MAX) throw new UserError(msg('users.username_too_long', { maximum: String(USERNAME_MAX) }), 'invalid_request', 200, 'username');
  const problem = usernameProblem(name);
  if (problem) throw new UserError(`username: ${problem}`, 'invalid_request', 200, 'username');
  if (await usernameTaken(manager, name, exceptUserId)) throw usernameTakenError();
  return name;
}

/**
 * A rename of `user` to `requested` as the self and admin edits send it: undefined when it is the
 * current name (sent unchanged, or a spelling that normalises to it: existing names stay as they
 * are), else the accepted name with its key.
 */
export async function renameFields(
  manager: EntityManager,
  user: UserEntity,
  requested: string | undefined,
): Promise<Pick<UserEntity, 'username' | 'username_key'> | undefined> {
  if (requested === undefined || requested === user.username || normalizeUsername(requested) === user.username) return undefined;
  const username = await acceptNewUsername(manager, requested, user.id);
  return { username, username_key: usernameKey(username) };
}

/**
 * Applies profile changes; a rename that lost a race for its name to another user (the unique
 * key) is refused as taken, with nothing written.
 */
export async function updateUser(manager: EntityManager, userId: number, changes: Partial<UserEntity>): Promise<void> {
  try {
    await manager.update(UserEntity, { id: userId }, changes);
  } catch (error) {
    if (changes.username !== undefined && isUniqueViolation(error)) throw usernameTakenError();
    throw error;
  }
}

/**
 * Inserts a user with a fresh 4-character invite code. Username and email are unique against
 * every user, deregistered ones included (the username regardless of case and width, by its
 * key); a clash becomes a UserError naming the field. The caller has checked the name's rules.
 */
export async function insertUser(manager: EntityManager, input: NewUser): Promise<UserEntity> {
  if (await usernameTaken(manager, input.username)) throw usernameTakenError();
  if (input.email) await ensureEmailFree(manager, input.email);
  for (let attempt = 0; ; attempt++) {
    const user = manager.create(UserEntity, {
      username: input.username,
      username_key: usernameKey(input.username),
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
      if (await usernameTaken(manager, input.username)) throw usernameTakenError();
      if (input.email) await ensureEmailFree(manager, input.email);
      if (attempt > 8) throw error;
    }
  }
}

/** A user by username (as typed, or NFKC-normalised as names are stored) or email, deregistered users excluded. */
export async function findLoginUser(db: DataSource, login: string): Promise<UserEntity | null> {
  const names = [...new Set([login, normalizeUsername(login)])].map((username) => ({ username }));
  const user = await db.getRepository(UserEntity).findOne({ where: login.includes('@') ? [{ email: login }, ...names] : names });
  return user && user.deleted_at === null ? user : null;
}

/** The signed-in user's own row; 401 when it is gone or deregistered (a session that outlived it). */
export async function loadActiveUser(manager: EntityManager, userId: number): Promise<UserEntity> {
  const user = await manager.findOneBy(UserEntity, { id: userId });
  if (!user || user.deleted_at !== null) throw new UnauthorizedError();
  return user;
}

/** The id of the user an invite code belongs to; 0 when the code is empty, unknown or its user deregistered. */
export async function inviterIdOf(manager: EntityManager, inviteCode: string | undefined): Promise<number> {
  const inviter = inviteCode ? await manager.findOneBy(UserEntity, { aff_code: inviteCode }) : null;
  return inviter && inviter.deleted_at === null ? inviter.id : 0;
}

/** The user a third-party account is bound to, deregistered users included. */
export function findByBinding(manager: EntityManager, column: BindingColumn, accountId: string): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, { [column]: accountId });
}
