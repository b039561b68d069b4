import type { EntityManager } from 'typeorm';
import { renderLogMessage, type LogMessage } from '@aigw/contracts';
import { counterKeys, param, queryRows, type Counters } from '@aigw/platform';
import { AccountEntity, LogEntity, type LedgerKind } from './entities/index.js';

/**
 * The money core. Every balance change goes through `applyToAccount` inside a database
 * transaction: one conditional UPDATE of the account and one ledger row, so the persisted
 * balance always equals the sum of the account's ledger entries (see reconcile.ts). The live
 * counters used by the relay's hot path are adjusted by the same delta after commit.
 */

/** Live counter keys of the quota hot path: defined once, with the quota gate in platform. */
export { counterKeys } from '@aigw/platform';

export interface AccountChange {
  userId: number;
  kind: LedgerKind;
  /** Signed change of the balance. */
  amount: number;
  /** Idempotency key for usage: a second application of the same request id fails the unique key. */
  requestId?: string;
  /**
   * Refuse the change when it would leave less than this (e.g. 0 for transfers). Omit to allow
   * any result (usage may overdraw by at most its hold; admin edits check the floor themselves).
   */
  floor?: number;
  /** Also add to used_quota and request_count (usage). */
  usage?: { used: number; requests: number };
  /** The admin who made the change (admin edits). */
  actorId?: number;
}

/**
 * Applies a balance change in the caller's transaction. Returns the new balance, or null when
 * the floor refused it (nothing written).
 */
export async function applyToAccount(manager: EntityManager, change: AccountChange): Promise<number | null> {
  const db = manager.connection;
  // Values are pushed in the order their placeholders appear: SQLite's `?` binds by position.
  const values: unknown[] = [change.amount];
  let sql = `UPDATE accounts SET quota = quota + ${param(db, 1)}`;
  if (change.usage) {
    values.push(change.usage.used, change.usage.requests);
    sql += `, used_quota = used_quota + ${param(db, 2)}, request_count = request_count + ${param(db, 3)}`;
  }
  values.push(change.userId);
  sql += ` WHERE user_id = ${param(db, values.length)}`;
  if (change.floor !== undefined) {
    values.push(change.floor - change.amount);
    sql += ` AND quota >= ${param(db, values.length)}`;
  }
  const rows = await queryRows<{ quota: number | string }>(manager, `${sql} RETURNING quota`, values);
  if (rows.length === 0) return null;
  // Raw SQL: this runs once per relayed request, and the query builder's overhead would dominate.
  await queryRows(
    manager,
    `INSERT INTO ledger_entries (user_id, kind, amount, request_id, actor_id, created_at) VALUES (${param(db, 1)}, ${param(db, 2)}, ${param(db, 3)}, ${param(db, 4)}, ${param(db, 5)}, ${param(db, 6)})`,
    [change.userId, change.kind, change.amount, change.requestId ?? null, change.actorId ?? null, Date.now()],
  );
  return Number(rows[0]!.quota);
}

/** Creates the account row if it does not exist yet (idempotent). */
export async function ensureAccount(
  manager: EntityManager,
  userId: number,
  profile: { username?: string; group?: string; status?: number; role?: number } = {},
): Promise<void> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(AccountEntity)
    .values({
      user_id: userId,
      username: profile.username ?? '',
      group: profile.group ?? 'default',
      status: profile.status ?? 1,
      role: profile.role ?? 1,
      quota: 0,
      used_quota: 0,
      request_count: 0,
      aff_count: 0,
      aff_quota: 0,
      aff_history_quota: 0,
      created_at: Date.now(),
    })
    .orIgnore()
    .execute();
}

export interface LogInput {
  userId: number;
  type: number;
  /** What happened, as data: read in the reader's language (log-messages.ts in contracts). */
  message: LogMessage;
  quota?: number;
  username?: string;
}

/** Writes an account log row (top-up, manage, system) in the caller's transaction. */
export async function writeLog(manager: EntityManager, input: LogInput): Promise<void> {
  let username = input.username;
  if (username === undefined) username = (await manager.findOneBy(AccountEntity, { user_id: input.userId }))?.username ?? '';
  await manager.insert(LogEntity, {
    user_id: input.userId,
    username,
    type: input.type,
    ...storedLogMessage(input.message),
    quota: input.quota ?? 0,
    created_at: Math.floor(Date.now() / 1000),
    request_id: null,
  });
}

/** After commit: moves the live counter by the same delta, if the counter is loaded (else it seeds from the database later). */
export async function adjustLiveUser(counters: Counters, userId: number, delta: number): Promise<void> {
  if (delta !== 0) await counters.adjust(counterKeys.user(userId), delta);
}

/** A log row's message as stored: the en-US text as `content`, the message itself in `other`. */
export function storedLogMessage(message: LogMessage): { content: string; other: string } {
  return { content: renderLogMessage(message, 'en-US'), other: JSON.stringify({ message }) };
}

/** `$12.34` for log texts, from quota units. */
export function formatQuota(quota: number, quotaPerUnit: number): string {
  return `$${(quota / quotaPerUnit).toFixed(2)}`;
}
