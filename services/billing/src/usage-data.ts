import type { DataSource, EntityManager } from 'typeorm';
import { msg, type UsageRow } from '@aigw/contracts';
import { param, queryRows, UserError } from '@aigw/platform';
import { QuotaDataEntity } from './entities/index.js';

/**
 * Hourly usage per user and model (`quota_data`), for the data dashboard. Written by the usage
 * consumer inside its transaction, so a usage event counts here exactly when it counts in the
 * ledger; read summed per model and hour.
 *
 * Why no "hourly aggregate flush" job: the established product counts in memory and flushes to
 * the table every DataExportInterval minutes. Here each request's upsert rides in the ledger
 * transaction, so the dashboard is current once the usage is committed, a crash loses no
 * buffered counts, and a redelivered event cannot count twice (the ledger's request id guards
 * both). A periodic flush would have nothing to write, and a buffer would give up those
 * guarantees; DataExportInterval is still stored and shown, but nothing waits for it.
 */

export const HOUR_SECONDS = 3600;
/** How far back users may look at once (the established product's limit). */
export const SELF_RANGE_MAX_SECONDS = 30 * 24 * HOUR_SECONDS;

export interface UsageHour {
  userId: number;
  username: string;
  modelName: string;
  /** Unix seconds of the request; stored as the start of its hour. */
  createdAt: number;
  quota: number;
  /** Prompt + completion tokens. */
  tokens: number;
}

/**
 * Adds one request to its (user, model, hour) row in one atomic upsert: concurrent writers and
 * replicas cannot lose increments. The caller decides whether DataExportEnabled is on.
 */
export async function recordUsageHour(manager: EntityManager, usage: UsageHour): Promise<void> {
  const db = manager.connection;
  const hour = Math.floor(usage.createdAt / HOUR_SECONDS) * HOUR_SECONDS;
  const p = (index: number) => param(db, index);
  await queryRows(
    manager,
    `INSERT INTO quota_data (user_id, username, model_name, created_at, count, quota, token_used) ` +
      `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, 1, ${p(5)}, ${p(6)}) ` +
      `ON CONFLICT (user_id, model_name, created_at) DO UPDATE SET count = quota_data.count + 1, ` +
      `quota = quota_data.quota + excluded.quota, token_used = quota_data.token_used + excluded.token_used, username = excluded.username`,
    [usage.userId, usage.username, usage.modelName, hour, usage.quota, usage.tokens],
  );
}

export interface UsageQuery {
  start_timestamp?: number;
  end_timestamp?: number;
}

/**
 * The time range of a dashboard query: defaults to the last 30 days up to now; a start after
 * the end, or (for users) a span beyond 30 days, is refused naming the field.
 */
export function usageRange(query: UsageQuery, maxSpan?: number, now = Math.floor(Date.now() / 1000)): { start: number; end: number } {
  const end = query.end_timestamp ?? now;
  const start = query.start_timestamp ?? Math.max(0, end - SELF_RANGE_MAX_SECONDS);
  if (start > end) throw new UserError(`start_timestamp: ${msg('data.start_after_end')}`);
  if (maxSpan !== undefined && end - start > maxSpan)
    throw new UserError(`end_timestamp: ${msg('data.range_too_long', { days: String(Math.floor(maxSpan / (24 * HOUR_SECONDS))) })}`);
  return { start, end };
}

/** Rows per model and hour in the range, summed over the users selected (all, one username, or one user id). */
export async function usageRows(db: DataSource, range: { start: number; end: number }, who: { username?: string; userId?: number } = {}): Promise<UsageRow[]> {
  const builder = db
    .getRepository(QuotaDataEntity)
    .createQueryBuilder('data')
    .select('data.model_name', 'model_name')
    .addSelect('data.created_at', 'created_at')
    .addSelect('SUM(data.count)', 'count')
    .addSelect('SUM(data.quota)', 'quota')
    .addSelect('SUM(data.token_used)', 'token_used')
    .where('data.created_at >= :start AND data.created_at <= :end', range)
    .groupBy('data.model_name')
    .addGroupBy('data.created_at')
    .orderBy('data.created_at', 'ASC')
    .addOrderBy('data.model_name', 'ASC');
  if (who.userId !== undefined) builder.andWhere('data.user_id = :userId', { userId: who.userId });
  if (who.username) builder.andWhere('data.username = :username', { username: who.username });
  // PostgreSQL returns SUMs of bigint as strings.
  const rows = await builder.getRawMany<Record<keyof UsageRow, string | number>>();
  return rows.map((row) => ({
    model_name: String(row.model_name),
    created_at: Number(row.created_at),
    count: Number(row.count),
    quota: Number(row.quota),
    token_used: Number(row.token_used),
  }));
}
