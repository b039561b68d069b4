import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Brackets } from 'typeorm';
import {
  createUserBodySchema, idSchema, manageUserBodySchema, pageQuerySchema, Role, updateUserBodySchema, UserStatus, userSearchQuerySchema,
  type ManageAction, type Page, type UpdateUserBody, type UserRow,
} from '@aigw/contracts';
import {
  auditSourceOf, BusRequestError, escapeLike, ForbiddenError, NotFoundError, OperationalError, recordAudit, requestTyped, requireAuth, UserError,
  type AuditEntry, type AuditSource,
} from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { decideUserAction, type UserAction } from '../domain/permissions.js';
import { hashPassword } from '../domain/passwords.js';
import { fetchBalances } from '../balances.js';
import { publishSessionRevoked, publishUserDeleted, publishUserRegistered, publishUserUpdated } from '../events.js';
import { insertUser, renameFields, toUserRow, updateUser } from '../users.js';
import { auditedUser, userTarget } from '../audit-trail.js';

/**
 * User management for admins. Every action passes `decideUserAction` before anything changes,
 * and leaves an audit record once it is committed (a quota change leaves billing's).
 */
export const userRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, bus, logger, sessions } = context;
  const users = db.getRepository(UserEntity);

  const authorize = (actorRole: number, targetRole: number, action: UserAction) => {
    const decision = decideUserAction(actorRole, targetRole, action);
    if (!decision.allowed) throw new ForbiddenError(decision.reason);
  };

  /** Loads the target, 404 when unknown, then checks the level rules. */
  const loadTarget = async (actorRole: number, id: number, action: UserAction): Promise<UserEntity> => {
    const target = await users.findOneBy({ id });
    if (!target) throw new NotFoundError('user not found');
    authorize(actorRole, target.role, action);
    return target;
  };

  /**
   * Forwards an admin's quota change to billing, which owns the balance: a delta, or a new
   * balance, compare-and-set against `expected_quota` when given. An absolute `quota` without it
   * is set unconditionally, as the established product does for scripts; the console always
   * sends the balance it saw. A refusal comes back naming the field the admin sent.
   */
  const changeQuota = async (userId: number, body: UpdateUserBody, source: AuditSource) => {
    const change = body.quota_delta !== undefined ? { delta: body.quota_delta } : { quota: body.quota, expected_quota: body.expected_quota };
    const { actor, ip } = source;
    try {
      await requestTyped(bus, 'billing.account.set_quota', {
        user_id: userId, ...change, actor_id: actor.user_id, actor_username: actor.username, actor_role: actor.role, client_ip: ip,
      }, { timeoutMs: 5_000 });
    } catch (error) {
      const field = body.quota_delta !== undefined ? 'quota_delta' : 'quota';
      if (error instanceof BusRequestError && error.reason === 'remote-error') throw new UserError(`${field}: ${error.message}`);
      throw new OperationalError('billing did not answer the quota change', 'billing_unavailable', 503, error);
    }
  };

  const page = async (rows: UserEntity[], total: number, query: { p: number; page_size: number }): Promise<Page<UserRow>> => {
    const balances = await fetchBalances(bus, logger, rows.map((row) => row.id));
    return { items: rows.map((row) => toUserRow(row, balances.get(row.id) ?? null)), total, page: query.p, page_size: query.page_size };
  };

  app.get('/api/user/', { schema: { querystring: pageQuerySchema }, config: { access: 'admin' } }, async (request) => {
    const { p, page_size } = request.query;
    const [rows, total] = await users.findAndCount({ order: { id: 'DESC' }, skip: (p - 1) * page_size, take: page_size });
    return { success: true, message: '', data: await page(rows, total, request.query) };
  });

  app.get('/api/user/search', { schema: { querystring: pageQuerySchema.extend(userSearchQuerySchema.shape) }, config: { access: 'admin' } }, async (request) => {
    const { keyword, group, p, page_size } = request.query;
    const query = users.createQueryBuilder('user').orderBy('user.id', 'DESC').skip((p - 1) * page_size).take(page_size);
    if (group) query.andWhere('user.group = :group', { group });
    if (keyword) {
      // Case-insensitive on both databases; %, _ and \ in the keyword match themselves.
      const like = `%${escapeLike(keyword.toLowerCase())}%`;
      query.andWhere(new Brackets((where) => {
        if (/^\d{1,9}$/.test(keyword)) where.orWhere('user.id = :id', { id: Number(keyword) });
        for (const column of ['username', 'display_name', 'email']) where.orWhere(`LOWER(user.${column}) LIKE :like ESCAPE '\\'`, { like });
      }));
    }
    const [rows, total] = await query.getManyAndCount();
    return { success: true, message: '', data: await page(rows, total, request.query) };
  });

  app.get('/api/user/:id', { schema: { params: z.object({ id: idSchema }) }, config: { access: 'admin' } }, async (request) => {
    const target = await loadTarget(requireAuth(request).role, request.params.id, 'get');
    const balance = (await fetchBalances(bus, logger, [target.id])).get(target.id) ?? null;
    return { success: true, message: '', data: toUserRow(target, balance) };
  });

  app.post('/api/user/', { schema: { body: createUserBodySchema }, config: { access: 'admin' } }, async (request) => {
    const actor = requireAuth(request);
    const role = request.body.role ?? Role.Common;
    authorize(actor.role, role, 'create');
    const user = await insertUser(db.manager, {
      username: request.body.username,
      displayName: request.body.display_name,
      passwordHash: await hashPassword(request.body.password),
      role,
    });
    await publishUserRegistered(bus, user, 'admin');
    await recordAudit(request, bus, 'identity', { action: 'user.created', target: userTarget(user), after: { ...auditedUser(user), password: user.password_hash } });
    return { success: true, message: '' };
  });

  app.put('/api/user/', { schema: { body: updateUserBodySchema }, config: { access: 'admin' } }, async (request) => {
    const target = await loadTarget(requireAuth(request).role, request.body.id, 'update');
    const body = request.body;
    const changes: Partial<UserEntity> = {};
    Object.assign(changes, await renameFields(db.manager, target, body.username));
    if (body.display_name !== undefined) changes.display_name = body.display_name;
    if (body.group !== undefined) changes.group = body.group;
    if (body.email !== undefined && body.email !== target.email) {
      if (body.email && (await users.existsBy({ email: body.email }))) throw new UserError('email: already used');
      changes.email = body.email;
    }
    // A new password ends every way in: sessions (below) and the system access token (issue 22.6).
    if (body.password) Object.assign(changes, { password_hash: await hashPassword(body.password), access_token_hash: null });
    // The balance is billing's: it applies the edit (with its ledger entry and manage log) first,
    // so a refusal there leaves the profile untouched too.
    if (body.quota !== undefined || body.quota_delta !== undefined) await changeQuota(target.id, body, auditSourceOf(request));
    if (Object.keys(changes).length) await updateUser(db.manager, target.id, changes);
    if (changes.password_hash) {
      await sessions.revokeAll(target.id);
      await publishSessionRevoked(bus, target.id, null);
    }
    const updated = { ...target, ...changes };
    await publishUserUpdated(bus, updated);
    // The password as its hash on both sides: masked, and shown as changed when it was.
    const password = (user: UserEntity) => (changes.password_hash ? { password: user.password_hash } : {});
    await recordAudit(request, bus, 'identity', {
      action: 'user.updated', target: userTarget(updated), before: { ...auditedUser(target), ...password(target) }, after: { ...auditedUser(updated), ...password(updated) },
    });
    return { success: true, message: '' };
  });

  app.post('/api/user/manage', { schema: { body: manageUserBodySchema }, config: { access: 'admin' } }, async (request) => {
    const target = await loadTarget(requireAuth(request).role, request.body.id, request.body.action);
    if (target.deleted_at !== null) throw new UserError('the user has been deregistered');
    const changes = manageChanges(request.body.action);
    await users.update({ id: target.id }, changes);
    const updated = { ...target, ...changes };
    if (changes.status === UserStatus.Disabled || changes.deleted_at) {
      await sessions.revokeAll(target.id);
      await publishSessionRevoked(bus, target.id, null);
    }
    if (changes.deleted_at) await publishUserDeleted(bus, target.id);
    else await publishUserUpdated(bus, updated);
    await recordAudit(request, bus, 'identity', manageAudit(request.body.action, target, updated));
    return { success: true, message: '', data: { role: updated.role, status: updated.status } };
  });
};

/** The record of a manage action: the role or status it changed, or the user it deregistered. */
function manageAudit(action: ManageAction, before: UserEntity, after: UserEntity): AuditEntry {
  const target = userTarget(before);
  switch (action) {
    case 'promote':
    case 'demote': return { action: 'user.role_changed', target, before: { role: before.role }, after: { role: after.role } };
    case 'disable':
    case 'enable': return { action: 'user.status_changed', target, before: { status: before.status }, after: { status: after.status } };
    case 'delete': return { action: 'user.deleted', target, before: auditedUser(before), after: null };
  }
}

function manageChanges(action: ManageAction): Partial<UserEntity> {
  switch (action) {
    case 'promote': return { role: Role.Admin };
    case 'demote': return { role: Role.Common };
    case 'disable': return { status: UserStatus.Disabled };
    case 'enable': return { status: UserStatus.Enabled };
    case 'delete': return { deleted_at: Date.now(), access_token_hash: null };
  }
}
