import { Brackets } from 'typeorm';
import {
  msg,
  Role,
  storedRateLimits,
  UserStatus,
  type CreateUserBody,
  type ManageAction,
  type Page,
  type PageQuery,
  type UpdateUserBody,
  type UserRow,
} from '@aigw/contracts';
import {
  BusRequestError,
  escapeLike,
  ForbiddenError,
  NotFoundError,
  OperationalError,
  publishAudit,
  requestTyped,
  UserError,
  type AuditEntry,
  type AuditSource,
} from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { decideUserAction, type UserAction } from './domain/permissions.js';
import { hashPassword } from './domain/passwords.js';
import { fetchBalances } from './balances.js';
import { publishUserRegistered, publishUserUpdated } from './events.js';
import { endSessions } from './sessions.js';
import { deregisterUser, profileChanges, saveProfile } from './profile.js';
import { ensureEmailFree, insertUser, toUserRow } from './users.js';
import { auditedUser, userTarget } from './audit-trail.js';

/**
 * User management for admins. Every action passes `decideUserAction` before anything changes,
 * and leaves an audit record once it is committed (a quota change leaves billing's).
 */

function authorize(actorRole: number, targetRole: number, action: UserAction): void {
  const decision = decideUserAction(actorRole, targetRole, action);
  if (!decision.allowed) throw new ForbiddenError(decision.reason);
}

/** The user an admin acts on: 404 when unknown, then the level rules for `action`. */
export async function loadManagedUser(context: Pick<IdentityContext, 'db'>, actorRole: number, id: number, action: UserAction): Promise<UserEntity> {
  const target = await context.db.manager.findOneBy(UserEntity, { id });
  if (!target) throw new NotFoundError(msg('users.not_found'));
  authorize(actorRole, target.role, action);
  return target;
}

async function withBalances(context: IdentityContext, rows: UserEntity[], total: number, query: PageQuery): Promise<Page<UserRow>> {
  const balances = await fetchBalances(
    context.bus,
    context.logger,
    rows.map((row) => row.id),
  );
  return { items: rows.map((row) => toUserRow(row, balances.get(row.id) ?? null)), total, page: query.p, page_size: query.page_size };
}

/** A page of users, newest first; `keyword` matches the id, username, display name or email, `group` the group. */
export async function listUsers(context: IdentityContext, query: PageQuery & { keyword?: string; group?: string }): Promise<Page<UserRow>> {
  const { keyword, group, p, page_size } = query;
  const builder = context.db
    .getRepository(UserEntity)
    .createQueryBuilder('user')
    .orderBy('user.id', 'DESC')
    .skip((p - 1) * page_size)
    .take(page_size);
  if (group) builder.andWhere('user.group = :group', { group });
  if (keyword) {
    // Case-insensitive on both databases; %, _ and \ in the keyword match themselves.
    const like = `%${escapeLike(keyword.toLowerCase())}%`;
    builder.andWhere(
      new Brackets((where) => {
        if (/^\d{1,9}$/.test(keyword)) where.orWhere('user.id = :id', { id: Number(keyword) });
        for (const column of ['username', 'display_name', 'email']) where.orWhere(`LOWER(user.${column}) LIKE :like ESCAPE '\\'`, { like });
      }),
    );
  }
  const [rows, total] = await builder.getManyAndCount();
  return withBalances(context, rows, total, query);
}

/** One user with its balance (null while billing does not answer). */
export async function getUser(context: IdentityContext, actorRole: number, id: number): Promise<UserRow> {
  const target = await loadManagedUser(context, actorRole, id, 'get');
  const balance = (await fetchBalances(context.bus, context.logger, [target.id])).get(target.id) ?? null;
  return toUserRow(target, balance);
}

/** A user an admin creates, below the admin's own level. */
export async function createUser(context: IdentityContext, body: CreateUserBody, source: AuditSource): Promise<void> {
  const role = body.role ?? Role.Common;
  authorize(source.actor.role, role, 'create');
  const user = await insertUser(context.db.manager, {
    username: body.username,
    displayName: body.display_name,
    passwordHash: await hashPassword(body.password),
    role,
  });
  await publishUserRegistered(context.bus, user, 'admin');
  await publishAudit(context.bus, 'identity', source, {
    action: 'user.created',
    target: userTarget(user),
    after: { ...auditedUser(user), password: user.password_hash },
  });
}

/**
 * Forwards an admin's quota change to billing, which owns the balance: a delta, or a new
 * balance, compare-and-set against `expected_quota` when given. An absolute `quota` without it
 * is set unconditionally, as the established product does for scripts; the console always
 * sends the balance it saw. A refusal comes back naming the field the admin sent.
 */
async function changeQuota(context: IdentityContext, userId: number, body: UpdateUserBody, source: AuditSource): Promise<void> {
  const change = body.quota_delta !== undefined ? { delta: body.quota_delta } : { quota: body.quota, expected_quota: body.expected_quota };
  const { actor, ip } = source;
  try {
    await requestTyped(
      context.bus,
      'billing.account.set_quota',
      {
        user_id: userId,
        ...change,
        actor_id: actor.user_id,
        actor_username: actor.username,
        actor_role: actor.role,
        client_ip: ip,
      },
      { timeoutMs: 5_000 },
    );
  } catch (error) {
    const field = body.quota_delta !== undefined ? 'quota_delta' : 'quota';
    if (error instanceof BusRequestError && error.reason === 'remote-error') throw new UserError(`${field}: ${error.message}`);
    throw new OperationalError('billing did not answer the quota change', 'billing_unavailable', 503, error);
  }
}

/** The admin's user editor: profile, group, email, password and (through billing) the balance. */
export async function editUser(context: IdentityContext, body: UpdateUserBody, source: AuditSource): Promise<void> {
  const target = await loadManagedUser(context, source.actor.role, body.id, 'update');
  const changes = await profileChanges(context.db.manager, target, body, 'admin');
  if (body.group !== undefined) changes.group = body.group;
  if (body.rate_limits !== undefined) changes.rate_limits = storedRateLimits(body.rate_limits);
  if (body.email !== undefined && body.email !== target.email) {
    if (body.email) await ensureEmailFree(context.db.manager, body.email, target.id);
    changes.email = body.email;
  }
  // The balance is billing's: it applies the edit (with its ledger entry and manage log) first,
  // so a refusal there leaves the profile untouched too.
  if (body.quota !== undefined || body.quota_delta !== undefined) await changeQuota(context, target.id, body, source);
  // A new password ends every way in: sessions and the system access token (issue 22.6).
  await saveProfile(context, target.id, changes);
  const updated = { ...target, ...changes };
  await publishUserUpdated(context.bus, updated);
  // The password as its hash on both sides: masked, and shown as changed when it was.
  const password = (user: UserEntity) => (changes.password_hash ? { password: user.password_hash } : {});
  await publishAudit(context.bus, 'identity', source, {
    action: 'user.updated',
    target: userTarget(updated),
    before: { ...auditedUser(target), ...password(target) },
    after: { ...auditedUser(updated), ...password(updated) },
  });
}

/** Promote, demote, disable, enable or deregister a user; answers the role and status it has now. */
export async function manageUser(
  context: IdentityContext,
  id: number,
  action: ManageAction,
  source: AuditSource,
): Promise<Pick<UserEntity, 'role' | 'status'>> {
  const target = await loadManagedUser(context, source.actor.role, id, action);
  if (target.deleted_at !== null) throw new UserError(msg('users.deregistered'));
  let updated: UserEntity;
  if (action === 'delete') {
    updated = { ...target, ...(await deregisterUser(context, target.id)) };
  } else {
    const changes = manageChanges(action);
    await context.db.manager.update(UserEntity, { id: target.id }, changes);
    updated = { ...target, ...changes };
    if (changes.status === UserStatus.Disabled) await endSessions(context, target.id);
    await publishUserUpdated(context.bus, updated);
  }
  await publishAudit(context.bus, 'identity', source, manageAudit(action, target, updated));
  return { role: updated.role, status: updated.status };
}

/** The record of a manage action: the role or status it changed, or the user it deregistered. */
function manageAudit(action: ManageAction, before: UserEntity, after: UserEntity): AuditEntry {
  const target = userTarget(before);
  switch (action) {
    case 'promote':
    case 'demote':
      return { action: 'user.role_changed', target, before: { role: before.role }, after: { role: after.role } };
    case 'disable':
    case 'enable':
      return { action: 'user.status_changed', target, before: { status: before.status }, after: { status: after.status } };
    case 'delete':
      return { action: 'user.deleted', target, before: auditedUser(before), after: null };
  }
}

function manageChanges(action: Exclude<ManageAction, 'delete'>): Partial<UserEntity> {
  switch (action) {
    case 'promote':
      return { role: Role.Admin };
    case 'demote':
      return { role: Role.Common };
    case 'disable':
      return { status: UserStatus.Disabled };
    case 'enable':
      return { status: UserStatus.Enabled };
  }
}
