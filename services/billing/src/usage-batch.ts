import type { EntityManager } from 'typeorm';
import { LogType, type EventPayload, type UsageRecord } from '@aigw/contracts';
import { isPostgres, param, queryRows, type OptionsMirror } from '@aigw/platform';
import { LedgerKind } from './entities/index.js';
import { HOUR_SECONDS } from './usage-data.js';

/**
 * Applies a batch of usage records in the caller's transaction with a fixed number of multi-row
 * statements, whatever the batch size (one round trip per statement was the cost: about 7 per
 * record before). What each record changes is what it changed when it was applied alone:
 *
 * - a ledger row (kind usage, amount -quota, its request id), the unique key that makes a record
 *   count once: `INSERT ... ON CONFLICT (request_id) DO NOTHING RETURNING request_id` says in the
 *   same statement which records are new, and the rest (redeliveries, or a replica that got
 *   there first) change nothing else. On PostgreSQL a row another transaction is inserting makes
 *   the insert wait for that transaction: committed, the row is skipped; rolled back, inserted.
 * - the account, created empty when the usage outran its registration: balance down by the
 *   charges, used quota up by them, request count up by the requests (zero charges included);
 * - the token (token id > 0, owned by the record's user): used quota up and accessed now, and
 *   remaining quota down for a limited token only;
 * - the consume log row (when LogConsumeEnabled) and the hourly `quota_data` row (when
 *   DataExportEnabled), with the username the account has;
 * - its pending row (a request the relay started) deleted; and a started request of the batch
 *   whose record is neither in it nor applied before becomes a pending row (`relay.request.started`:
 *   usage-consumer.ts).
 *
 * Sums are BigInt: a charge is at most MAX_QUOTA (10^15), so nine in a batch could pass 2^53.
 *
 * No deadlocks between replicas: every transaction takes its locks in the same global order:
 * ledger keys by request id, then the accounts it creates, then accounts by user id (`SELECT ...
 * ORDER BY user_id FOR UPDATE`: PostgreSQL locks after sorting), and never goes back to an
 * earlier kind. Tokens, hourly rows and log rows belong to an account it holds or a ledger row
 * it inserted, so no other usage transaction waits for them; pending rows come last, by request
 * id, and belong to requests whose ledger keys the batch holds or waited for. (A deadlock detected
 * anyway would only fail the batch, whose events are then applied one per transaction.) SQLite
 * has one writer at a time (the platform runs transactions in turn).
 *
 * SQLite runs the same statements rather than the old per-record path: better-sqlite3 12 bundles
 * SQLite 3.53, which has UPDATE ... FROM (since 3.33), RETURNING and ON CONFLICT ... DO NOTHING
 * RETURNING (3.35), so one code path, tested on both, is simpler than two. The only differences:
 * no FOR UPDATE (one writer at a time anyway), and the `param` placeholders.
 */

export type BalanceDrop = EventPayload<'billing.balance.dropped'>;

export type RequestStarted = EventPayload<'relay.request.started'>;

/** What one record did: applied (its charge; a drop when it took the balance below the threshold), or applied before. */
export type RecordResult = { outcome: 'applied'; charge: { userId: number; quota: number }; dropped?: BalanceDrop } | { outcome: 'duplicate' };

export interface BatchResult {
  /** Per record, in their order. */
  records: RecordResult[];
  /** The started requests kept as pending rows (the others' records were applied before). */
  pending: Set<string>;
}

/**
 * Applies the records that are new, keeps the started requests whose records are not in the batch
 * (nor applied before) as pending rows, and drops the pending rows of the records. A request id
 * twice in the batch counts once (its first record); the others are duplicates.
 *
 * Three round trips whatever the batch (up to eleven before), in the lock order above: statements
 * that need no earlier one's answer are sent together, and a connection runs them in the order
 * sent. On SQLite each answer waits for a turn of the event loop the relay keeps busy, and the
 * longer a batch takes, the more of its records live long enough to be promoted to V8's old
 * generation (docs/architecture.md section 5). A failing statement fails the batch all the same:
 * the transaction rolls back whole.
 */
export async function applyBatch(
  manager: EntityManager,
  options: Pick<OptionsMirror, 'get'>,
  records: UsageRecord[],
  started: RequestStarted[],
): Promise<BatchResult> {
  const first = firstPerRequest(records);
  const candidates = [...first.values()].map((index) => records[index]!);
  const recordedIds = [...first.keys()];
  const waiting = started.filter((entry) => !first.has(entry.record.request_id));
  // 1. The ledger rows (which records are new), and which started requests were applied before.
  const [inserted, appliedBefore] = await Promise.all([insertLedgerEntries(manager, candidates), ledgerEntriesOf(manager, waiting)]);
  const isNew = (usage: UsageRecord, index: number) => first.get(usage.request_id) === index && inserted.has(usage.request_id);
  const applied = records.filter(isNew);
  const users = [...new Set(applied.map((usage) => usage.user_id))].sort((a, b) => a - b);
  // 2. The accounts and tokens.
  let usernames = new Map<number, string>();
  let balances = new Map<number, bigint>();
  if (applied.length > 0) {
    [, usernames, balances] = await Promise.all([
      createMissingAccounts(manager, users),
      lockAccounts(manager, users),
      chargeAccounts(manager, applied),
      chargeTokens(manager, applied),
    ]);
  }
  // 3. The logs, the hourly rows, the pending rows in and out.
  const kept = waiting.filter((entry) => !appliedBefore.has(entry.record.request_id));
  await Promise.all([
    applied.length > 0 && options.get('LogConsumeEnabled') ? insertConsumeLogs(manager, applied, usernames) : undefined,
    applied.length > 0 && options.get('DataExportEnabled') ? addUsageHours(manager, applied, usernames) : undefined,
    insertPending(manager, kept),
    deletePending(manager, recordedIds),
  ]);
  const drops = balanceDrops(applied, balances, options.get('QuotaRemindThreshold'));
  return {
    records: records.map((usage, index) =>
      isNew(usage, index)
        ? { outcome: 'applied', charge: { userId: usage.user_id, quota: usage.quota }, dropped: drops.get(usage.request_id) }
        : { outcome: 'duplicate' },
    ),
    pending: new Set(kept.map((entry) => entry.record.request_id)),
  };
}

/** Request id -> the index of its first record (by id, not identity: the same object may come twice). */
function firstPerRequest(records: UsageRecord[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const [index, usage] of records.entries()) if (!first.has(usage.request_id)) first.set(usage.request_id, index);
  return first;
}

/** Bound parameters in order of appearance (`$n` on PostgreSQL, `?` on SQLite): never a spliced value (rule R6). */
function binder(manager: EntityManager) {
  const db = manager.connection;
  const values: unknown[] = [];
  const bind = (value: unknown) => {
    values.push(value);
    return param(db, values.length);
  };
  /**
   * `(…), (…)` for a VALUES list. Types, when given, are SQL casts: PostgreSQL types the
   * parameters of a VALUES list that does not feed an INSERT as text, and then `quota - $2` fails.
   */
  const rows = (cells: unknown[][], types?: string[]) =>
    cells.map((row) => `(${row.map((cell, column) => (types ? `CAST(${bind(cell)} AS ${types[column]})` : bind(cell))).join(', ')})`).join(', ');
  return { values, bind, rows };
}

/** Inserts the ledger rows; returns the request ids that were new. */
async function insertLedgerEntries(manager: EntityManager, records: UsageRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  // In request id order: replicas inserting overlapping batches then wait for each other's rows
  // in one order, never in a cycle.
  const sorted = [...records].sort((a, b) => (a.request_id < b.request_id ? -1 : a.request_id > b.request_id ? 1 : 0));
  const now = Date.now();
  const sql = binder(manager);
  // `0 - quota`: a free request stores 0, not -0.
  const values = sql.rows(sorted.map((usage) => [usage.user_id, LedgerKind.Usage, 0 - usage.quota, usage.request_id, now]));
  const rows = await queryRows<{ request_id: string }>(
    manager,
    `INSERT INTO ledger_entries (user_id, kind, amount, request_id, created_at) VALUES ${values} ON CONFLICT (request_id) DO NOTHING RETURNING request_id`,
    sql.values,
  );
  return new Set(rows.map((row) => row.request_id));
}

/**
 * Usage may outrun the registration event: a missing account is created empty (every other column
 * takes its default, as `ensureAccount` with no profile does; the identity event fills in the
 * profile later). Before any account is locked, so waiting for another replica creating the same
 * account never happens while holding locks.
 */
async function createMissingAccounts(manager: EntityManager, users: number[]): Promise<void> {
  const now = Date.now();
  const sql = binder(manager);
  const values = sql.rows(users.map((userId) => [userId, now]));
  await queryRows(manager, `INSERT INTO accounts (user_id, created_at) VALUES ${values} ON CONFLICT (user_id) DO NOTHING`, sql.values);
}

/** Locks the accounts in user order (deadlock-free across replicas); returns their usernames. */
async function lockAccounts(manager: EntityManager, users: number[]): Promise<Map<number, string>> {
  const sql = binder(manager);
  const list = users.map((userId) => sql.bind(userId)).join(', ');
  const lock = isPostgres(manager.connection) ? ' FOR UPDATE' : '';
  const rows = await queryRows<{ user_id: number; username: string }>(
    manager,
    `SELECT user_id, username FROM accounts WHERE user_id IN (${list}) ORDER BY user_id${lock}`,
    sql.values,
  );
  // Accounts are never deleted (a deleted user's is marked), and each was created just before.
  if (rows.length !== users.length) throw new Error(`usage batch: ${users.length - rows.length} of ${users.length} accounts not found`);
  return new Map(rows.map((row) => [Number(row.user_id), row.username]));
}

/** Per user: what the batch charged and how many requests. */
function totalsPerUser(records: UsageRecord[]): Map<number, { spent: bigint; requests: number }> {
  const totals = new Map<number, { spent: bigint; requests: number }>();
  for (const usage of records) {
    const total = totals.get(usage.user_id) ?? { spent: 0n, requests: 0 };
    totals.set(usage.user_id, { spent: total.spent + BigInt(usage.quota), requests: total.requests + 1 });
  }
  return totals;
}

/**
 * One UPDATE for every account in the batch. No floor: the relay already admitted the requests,
 * and a charge above its hold is the bounded overdraft. Returns each balance after.
 */
async function chargeAccounts(manager: EntityManager, records: UsageRecord[]): Promise<Map<number, bigint>> {
  const sql = binder(manager);
  const totals = [...totalsPerUser(records)].map(([userId, { spent, requests }]) => [userId, spent, requests]);
  const values = sql.rows(totals, ['INTEGER', 'BIGINT', 'INTEGER']);
  const rows = await queryRows<{ user_id: number; quota: number | string }>(
    manager,
    `WITH charged (account_id, spent, requests) AS (VALUES ${values}) ` +
      `UPDATE accounts SET quota = accounts.quota - charged.spent, used_quota = accounts.used_quota + charged.spent, ` +
      `request_count = accounts.request_count + charged.requests FROM charged WHERE accounts.user_id = charged.account_id RETURNING user_id, quota`,
    sql.values,
  );
  return new Map(rows.map((row) => [Number(row.user_id), BigInt(row.quota)]));
}

/**
 * One UPDATE for every token in the batch: remain_quota only moves for limited tokens; the owner
 * check keeps a forged token id harmless (the pair, not the id, is the key, so a token row meets
 * at most one row of the VALUES list).
 */
async function chargeTokens(manager: EntityManager, records: UsageRecord[]): Promise<void> {
  const spent = new Map<string, { tokenId: number; userId: number; spent: bigint }>();
  for (const usage of records) {
    if (usage.token_id <= 0) continue; // the playground bills the user only
    const key = `${usage.token_id}/${usage.user_id}`;
    const total = spent.get(key) ?? { tokenId: usage.token_id, userId: usage.user_id, spent: 0n };
    total.spent += BigInt(usage.quota);
    spent.set(key, total);
  }
  if (spent.size === 0) return;
  const sql = binder(manager);
  const values = sql.rows(
    [...spent.values()].map((token) => [token.tokenId, token.userId, token.spent]),
    ['INTEGER', 'INTEGER', 'BIGINT'],
  );
  const accessed = sql.bind(Math.floor(Date.now() / 1000));
  await queryRows(
    manager,
    `WITH charged (token_id, owner_id, spent) AS (VALUES ${values}) ` +
      `UPDATE tokens SET remain_quota = CASE WHEN tokens.unlimited_quota THEN tokens.remain_quota ELSE tokens.remain_quota - charged.spent END, ` +
      `used_quota = tokens.used_quota + charged.spent, accessed_time = ${accessed} ` +
      `FROM charged WHERE tokens.id = charged.token_id AND tokens.user_id = charged.owner_id`,
    sql.values,
  );
}

/** One INSERT for the consume log rows of the records applied (booleans: TypeORM binds them as 0/1 on SQLite). */
async function insertConsumeLogs(manager: EntityManager, records: UsageRecord[], usernames: Map<number, string>): Promise<void> {
  const sql = binder(manager);
  const values = sql.rows(
    records.map((usage) => [
      usage.request_id,
      usage.user_id,
      usernames.get(usage.user_id) ?? '',
      usage.created_at,
      LogType.Consume,
      usage.content,
      usage.token_id,
      usage.token_name,
      usage.model_name,
      usage.quota,
      usage.prompt_tokens,
      usage.completion_tokens,
      Math.floor(usage.use_time_ms / 1000),
      usage.is_stream,
      usage.channel_id,
      usage.group,
      JSON.stringify(usage.other),
    ]),
  );
  await queryRows(
    manager,
    `INSERT INTO logs (request_id, user_id, username, created_at, type, content, token_id, token_name, model_name, quota, prompt_tokens, ` +
      `completion_tokens, use_time, is_stream, channel_id, "group", other) VALUES ${values}`,
    sql.values,
  );
}

/**
 * One upsert for the hourly rows (user, model, hour) the batch touches. Summed here first: one
 * statement may not update the same row twice, and a multi-row upsert is what makes it one.
 */
async function addUsageHours(manager: EntityManager, records: UsageRecord[], usernames: Map<number, string>): Promise<void> {
  const hours = new Map<string, { userId: number; modelName: string; hour: number; count: number; quota: bigint; tokens: number }>();
  for (const usage of records) {
    const hour = Math.floor(usage.created_at / HOUR_SECONDS) * HOUR_SECONDS;
    const key = JSON.stringify([usage.user_id, usage.model_name, hour]);
    const row = hours.get(key) ?? { userId: usage.user_id, modelName: usage.model_name, hour, count: 0, quota: 0n, tokens: 0 };
    // Tokens stay a number: at most 2 x 10^8 per record, so a batch sums far below 2^53.
    row.count += 1;
    row.quota += BigInt(usage.quota);
    row.tokens += usage.prompt_tokens + usage.completion_tokens;
    hours.set(key, row);
  }
  const sql = binder(manager);
  const values = sql.rows(
    [...hours.values()].map((row) => [row.userId, usernames.get(row.userId) ?? '', row.modelName, row.hour, row.count, row.quota, row.tokens]),
  );
  await queryRows(
    manager,
    `INSERT INTO quota_data (user_id, username, model_name, created_at, count, quota, token_used) VALUES ${values} ` +
      `ON CONFLICT (user_id, model_name, created_at) DO UPDATE SET count = quota_data.count + excluded.count, ` +
      `quota = quota_data.quota + excluded.quota, token_used = quota_data.token_used + excluded.token_used, username = excluded.username`,
    sql.values,
  );
}

/**
 * The records that took their account from at or above the threshold to below it. Each record
 * steps the balance in batch order from where it stood before the batch (after + the batch's
 * charges), as if applied one by one, so only the one that crossed reports.
 */
function balanceDrops(records: UsageRecord[], after: Map<number, bigint>, threshold: number): Map<string, BalanceDrop> {
  const balance = new Map([...totalsPerUser(records)].map(([userId, { spent }]) => [userId, after.get(userId)! + spent]));
  const limit = BigInt(threshold);
  const drops = new Map<string, BalanceDrop>();
  for (const usage of records) {
    const before = balance.get(usage.user_id)!;
    const now = before - BigInt(usage.quota);
    balance.set(usage.user_id, now);
    if (now < limit && before >= limit) drops.set(usage.request_id, { user_id: usage.user_id, quota: Number(now), threshold, request_id: usage.request_id });
  }
  return drops;
}

/** The request ids among the started requests' that have a ledger row already (their records came first). */
async function ledgerEntriesOf(manager: EntityManager, started: RequestStarted[]): Promise<Set<string>> {
  if (started.length === 0) return new Set();
  const sql = binder(manager);
  const list = started.map((entry) => sql.bind(entry.record.request_id)).join(', ');
  const rows = await queryRows<{ request_id: string }>(manager, `SELECT request_id FROM ledger_entries WHERE request_id IN (${list})`, sql.values);
  return new Set(rows.map((row) => row.request_id));
}

/** One multi-row insert of pending rows (the sweep finishes them if their records never come). */
async function insertPending(manager: EntityManager, started: RequestStarted[]): Promise<void> {
  if (started.length === 0) return;
  const now = Date.now();
  const sql = binder(manager);
  const values = sql.rows(started.map(({ record, owner, expires_at }) => [record.request_id, record.user_id, owner, expires_at, JSON.stringify(record), now]));
  await queryRows(
    manager,
    `INSERT INTO pending_requests (request_id, user_id, owner, expires_at, record, created_at) VALUES ${values} ON CONFLICT (request_id) DO NOTHING`,
    sql.values,
  );
}

/**
 * Drops the pending rows of the batch's records (applied now or before). In request id order, like
 * the ledger insert, so two batches deleting the same rows queue up.
 */
async function deletePending(manager: EntityManager, requestIds: string[]): Promise<void> {
  if (requestIds.length === 0) return;
  const sql = binder(manager);
  const list = [...requestIds]
    .sort()
    .map((requestId) => sql.bind(requestId))
    .join(', ');
  await queryRows(manager, `DELETE FROM pending_requests WHERE request_id IN (${list})`, sql.values);
}
