import { LogType, MAX_QUOTA, msg, Role, storedRateLimits, type EventPayload } from '@aigw/contracts';
import { isPostgres, onEvent, publishAudit, queryRows, replyTyped, UserError, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, LedgerEntryEntity, LedgerKind } from './entities/index.js';
import { adjustLiveUser, applyToAccount, counterKeys, ensureAccount, formatQuota, writeLog } from './ledger.js';
import { publishAccountUpdated } from './events.js';

/** The super admin's starting balance ($200), as in the established product. */
export const ROOT_INITIAL_QUOTA = 100_000_000;

/** Status billing keeps for a deregistered user: tokens stop working. */
export const ACCOUNT_DELETED = 0;

/**
 * Accounts follow identity's users: opened on registration with the configured grants (new-user
 * quota, invitee and inviter rewards), and kept in step with status and group changes.
 * Every handler is idempotent: events arrive at least once.
 */
export async function subscribeAccountEvents(context: BillingContext): Promise<Subscription[]> {
  const { bus, logger } = context;
  return Promise.all([
    onEvent(bus, 'identity.user.registered', (payload) => openAccount(context, payload), { durable: 'billing-accounts', logger }),
    onEvent(
      bus,
      'identity.user.updated',
      async (payload) => {
        await context.db.transaction(async (manager) => {
          await ensureAccount(manager, payload.user_id, { username: payload.username, group: payload.group, status: payload.status, role: payload.role });
          await manager.update(
            AccountEntity,
            { user_id: payload.user_id },
            {
              username: payload.username,
              group: payload.group,
              status: payload.status,
              role: payload.role,
              rate_limits: storedRateLimits(payload.rate_limits),
            },
          );
        });
        await publishAccountUpdated(context, payload.user_id);
      },
      { durable: 'billing-accounts', logger },
    ),
    onEvent(
      bus,
      'identity.user.deleted',
      async ({ user_id }) => {
        await context.db.getRepository(AccountEntity).update({ user_id }, { status: ACCOUNT_DELETED });
        await publishAccountUpdated(context, user_id);
      },
      { durable: 'billing-accounts', logger },
    ),
  ]);
}

async function openAccount(context: BillingContext, user: EventPayload<'identity.user.registered'>): Promise<void> {
  const { options } = context;
  const perUnit = options.get('QuotaPerUnit');
  const granted: number[] = [];
  const opened = await context.db.transaction(async (manager) => {
    // An update of the user may have opened the row already (events of different subjects are
    // not ordered), so the registration is marked by its own ledger entry, not by the row.
    const marker = `registered:${user.user_id}`;
    await ensureAccount(manager, user.user_id, { username: user.username, group: user.group, status: user.status, role: user.role });
    if (await manager.existsBy(LedgerEntryEntity, { request_id: marker })) return false; // redelivered
    // A row opened earlier by another path (top-up, seed) has no profile yet.
    await manager.update(
      AccountEntity,
      { user_id: user.user_id, username: '' },
      { username: user.username, group: user.group, status: user.status, role: user.role },
    );
    const newUserQuota = user.source === 'setup' && user.role >= Role.Root ? ROOT_INITIAL_QUOTA : options.get('QuotaForNewUser');
    await applyToAccount(manager, { userId: user.user_id, kind: LedgerKind.Grant, amount: newUserQuota, requestId: marker });
    if (newUserQuota > 0) {
      granted.push(newUserQuota);
      await writeLog(manager, {
        userId: user.user_id,
        type: LogType.System,
        message: { id: 'gift.new_user', params: { quota: formatQuota(newUserQuota, perUnit) } },
        quota: newUserQuota,
        username: user.username,
      });
    }
    if (user.inviter_id > 0) {
      const inviteeQuota = options.get('QuotaForInvitee');
      if (inviteeQuota > 0) {
        granted.push(inviteeQuota);
        await applyToAccount(manager, { userId: user.user_id, kind: LedgerKind.Grant, amount: inviteeQuota });
        await writeLog(manager, {
          userId: user.user_id,
          type: LogType.System,
          message: { id: 'gift.invitee', params: { quota: formatQuota(inviteeQuota, perUnit) } },
          quota: inviteeQuota,
          username: user.username,
        });
      }
      const inviterReward = options.get('QuotaForInviter');
      await ensureAccount(manager, user.inviter_id);
      await manager.increment(AccountEntity, { user_id: user.inviter_id }, 'aff_count', 1);
      if (inviterReward > 0) {
        await manager.increment(AccountEntity, { user_id: user.inviter_id }, 'aff_quota', inviterReward);
        await manager.increment(AccountEntity, { user_id: user.inviter_id }, 'aff_history_quota', inviterReward);
        await writeLog(manager, {
          userId: user.inviter_id,
          type: LogType.System,
          message: { id: 'invite.reward', params: { quota: formatQuota(inviterReward, perUnit) } },
        });
      }
    }
    return true;
  });
  if (!opened) return;
  await adjustLiveUser(
    context.counters,
    user.user_id,
    granted.reduce((sum, amount) => sum + amount, 0),
  );
  await publishAccountUpdated(context, user.user_id);
}

/** Request-reply for identity: balances of a page of users, and the admin's quota edit. */
export async function registerAccountResponders(context: BillingContext): Promise<Subscription[]> {
  const { bus, db, options } = context;
  const accounts = db.getRepository(AccountEntity);
  return Promise.all([
    replyTyped(bus, 'billing.account.balances', async ({ user_ids }) => {
      const rows = user_ids.length ? await accounts.createQueryBuilder('account').where('account.user_id IN (:...ids)', { ids: user_ids }).getMany() : [];
      return {
        balances: Object.fromEntries(
          rows.map((row) => [
            String(row.user_id),
            {
              quota: row.quota,
              used_quota: row.used_quota,
              request_count: row.request_count,
              aff_count: row.aff_count,
              aff_quota: row.aff_quota,
              aff_history_quota: row.aff_history_quota,
            },
          ]),
        ),
      };
    }),
    replyTyped(bus, 'billing.account.set_quota', async ({ user_id, quota, expected_quota, delta: added, actor_id, actor_username, actor_role, client_ip }) => {
      const perUnit = options.get('QuotaPerUnit');
      let rebased = false;
      let outcome: { change: number; balance: number; previous: number; username: string };
      try {
        outcome = await db.transaction(async (manager) => {
          await ensureAccount(manager, user_id);
          // Locked on PostgreSQL so usage committing meanwhile cannot slip between read and write,
          // and a second admin's change waits for this one (SQLite transactions already take turns).
          const current = isPostgres(db)
            ? Number((await queryRows<{ quota: string }>(manager, `SELECT quota FROM accounts WHERE user_id = $1 FOR UPDATE`, [user_id]))[0]!.quota)
            : (await manager.findOneByOrFail(AccountEntity, { user_id })).quota;
          // Compare-and-set: the admin typed a balance over the one they saw; if it has moved since
          // (usage, a top-up, another admin), setting theirs would silently undo that change.
          if (expected_quota !== undefined && current !== expected_quota) {
            throw new UserError(msg('quota.balance_changed', { current: String(current), expected: String(expected_quota) }), 'balance_changed');
          }
          const target = quota ?? current + added!;
          if (!Number.isSafeInteger(target) || Math.abs(target) > MAX_QUOTA) throw new UserError(msg('quota.out_of_range', { target: String(target) }));
          // A set balance is never negative, and taking money away stops at 0 (a balance already
          // overdrawn by usage may still be raised towards 0 by a smaller positive delta).
          if (quota !== undefined && quota < 0) throw new UserError(msg('quota.set_negative'));
          if (added !== undefined && added < 0 && target < 0) {
            throw new UserError(msg('quota.below_zero', { current: String(current), maximum: String(Math.max(current, 0)) }), 'balance_below_zero');
          }
          const change = target - current;
          if (change !== 0) {
            await applyToAccount(manager, { userId: user_id, kind: LedgerKind.Admin, amount: change, actorId: actor_id });
            await writeLog(manager, {
              userId: user_id,
              type: LogType.Manage,
              quota: change,
              message: { id: 'quota.admin_set', params: { admin: actor_username, from: formatQuota(current, perUnit), to: formatQuota(target, perUnit) } },
            });
          }
          if (quota !== undefined) {
            // An absolute balance re-bases the live counter (balance - held), not a delta on top
            // of a counter that may have drifted; while the row is locked, so no usage commit of
            // this user moves the database or what is held between the two.
            rebased = true;
            await context.counters.rebase(counterKeys.user(user_id), target, counterKeys.userHeld(user_id));
          }
          const { username } = await manager.findOneByOrFail(AccountEntity, { user_id });
          return { change, balance: target, previous: current, username };
        });
      } catch (error) {
        // Re-based but not committed: drop the counter, so the next request seeds it from the database.
        if (rebased) await context.counters.delete(counterKeys.user(user_id));
        throw error;
      }
      const { change: delta, balance, previous, username } = outcome;
      if (!rebased) await adjustLiveUser(context.counters, user_id, delta);
      if (delta !== 0) {
        await publishAccountUpdated(context, user_id);
        // The admin trail beside the manage log the user sees (issue 22.13): one audit path for every admin action.
        await publishAudit(
          bus,
          'billing',
          { actor: { user_id: actor_id, username: actor_username, role: actor_role ?? 0 }, ip: client_ip ?? '' },
          {
            action: 'user.quota_changed',
            target: { type: 'user', id: String(user_id), label: username || String(user_id) },
            before: { quota: previous },
            after: { quota: balance },
          },
        );
      }
      return { quota: balance };
    }),
  ]);
}

/**
 * Moves `amount` of the user's invite earnings (aff_quota) into the spendable balance, at least
 * one unit (QuotaPerUnit) at a time. Returns the message the caller shows.
 */
export async function transferInviteEarnings(context: BillingContext, userId: number, amount: number): Promise<string> {
  const perUnit = context.options.get('QuotaPerUnit');
  if (amount < perUnit) throw new UserError(msg('transfer.minimum', { minimum: formatQuota(perUnit, perUnit) }));
  await context.db.transaction(async (manager) => {
    await ensureAccount(manager, userId);
    // One conditional statement: two concurrent transfers cannot both spend the same earnings.
    const taken = await manager
      .createQueryBuilder()
      .update(AccountEntity)
      .set({ aff_quota: () => 'aff_quota - :amount' })
      .where('user_id = :userId AND aff_quota >= :amount', { userId, amount })
      .execute();
    if (!taken.affected) throw new UserError(`quota: ${msg('transfer.exceeds_earnings')}`);
    await applyToAccount(manager, { userId, kind: LedgerKind.Transfer, amount });
    await writeLog(manager, {
      userId,
      type: LogType.System,
      quota: amount,
      message: { id: 'invite.transfer', params: { quota: formatQuota(amount, perUnit) } },
    });
  });
  await adjustLiveUser(context.counters, userId, amount);
  await publishAccountUpdated(context, userId);
  return msg('transfer.done', { quota: formatQuota(amount, perUnit) });
}
