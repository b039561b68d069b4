import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { JobName, logContentFor, LogType, type LogQuery, type LogStat, type LogView, type Page } from '@aigw/contracts';
import { recordedJob } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { LogEntity } from './entities/index.js';

/**
 * Usage and account logs: filtered pages, totals, deletion and retention. Every filter is an
 * exact match on a bound parameter (rule R6), and each one has an index ending in created_at
 * (see the migration), so a filtered, newest-first page is an index range scan.
 */

/** Filters after access rules: `userId` is set for the self routes (and then username/channel are not). */
export type LogFilter = Partial<Omit<LogQuery, 'type'>> & { type?: number; userId?: number };

/** What an ordinary user may filter on: their own rows only; username and channel are admin filters. */
export function selfFilter(query: LogQuery, userId: number): LogFilter {
  return { ...query, userId, username: '', channel: 0 };
}

/** rpm and tpm look at this many seconds back from now. */
const RATE_WINDOW_SECONDS = 60;
/** Rows per DELETE statement: short statements keep locks and WAL growth small on a 10M-row table. */
export const LOG_DELETE_BATCH = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

const nowSeconds = () => Math.floor(Date.now() / 1000);

function applyFilter(builder: SelectQueryBuilder<LogEntity>, filter: LogFilter, withTime: boolean): SelectQueryBuilder<LogEntity> {
  if (filter.userId !== undefined) builder.andWhere('log.user_id = :userId', { userId: filter.userId });
  if (filter.type) builder.andWhere('log.type = :type', { type: filter.type });
  if (filter.username) builder.andWhere('log.username = :username', { username: filter.username });
  if (filter.token_name) builder.andWhere('log.token_name = :tokenName', { tokenName: filter.token_name });
  if (filter.model_name) builder.andWhere('log.model_name = :modelName', { modelName: filter.model_name });
  if (filter.channel) builder.andWhere('log.channel_id = :channel', { channel: filter.channel });
  if (filter.group) builder.andWhere('log.group = :group', { group: filter.group });
  if (withTime && filter.start_timestamp !== undefined) builder.andWhere('log.created_at >= :start', { start: filter.start_timestamp });
  if (withTime && filter.end_timestamp !== undefined) builder.andWhere('log.created_at <= :end', { end: filter.end_timestamp });
  return builder;
}

/** A row as the log routes answer it; an account row's text in the reader's language (the console sends its own). */
export function toLogView(row: LogEntity, acceptLanguage?: string): LogView {
  return {
    id: row.id,
    created_at: row.created_at,
    type: row.type,
    content: logContentFor(row, acceptLanguage),
    user_id: row.user_id,
    username: row.username,
    token_id: row.token_id,
    token_name: row.token_name,
    model_name: row.model_name,
    quota: row.quota,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    use_time: row.use_time,
    is_stream: row.is_stream,
    channel: row.channel_id,
    group: row.group,
    other: row.other,
    request_id: row.request_id ?? '',
  };
}

/**
 * What a user sees of their own row: no channel, and `other` without admin_info (which names
 * the upstream channels used). Unparseable `other` is dropped rather than passed on unchecked.
 */
export function toSelfLogView(row: LogEntity, acceptLanguage?: string): LogView {
  let other = '';
  if (row.other) {
    try {
      const parsed: unknown = JSON.parse(row.other);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        delete (parsed as Record<string, unknown>).admin_info;
        other = JSON.stringify(parsed);
      }
    } catch {
      other = '';
    }
  }
  return { ...toLogView(row, acceptLanguage), channel: 0, other };
}

/** A page of logs, newest first. */
export async function listLogs(db: DataSource, filter: LogFilter, page: { p: number; page_size: number }): Promise<{ rows: LogEntity[]; total: number }> {
  const builder = applyFilter(db.getRepository(LogEntity).createQueryBuilder('log'), filter, true)
    .orderBy('log.created_at', 'DESC')
    .addOrderBy('log.id', 'DESC')
    .offset((page.p - 1) * page.page_size)
    .limit(page.page_size);
  const [rows, total] = await builder.getManyAndCount();
  return { rows, total };
}

export function toPage<T>(items: T[], total: number, page: { p: number; page_size: number }): Page<T> {
  return { items, total, page: page.p, page_size: page.page_size };
}

/** Totals over consume logs: quota in the filtered range, rpm/tpm over the last minute (time filters do not apply to those). */
export async function logStat(db: DataSource, filter: LogFilter, now = nowSeconds()): Promise<LogStat> {
  const consume: LogFilter = { ...filter, type: LogType.Consume };
  const repository = db.getRepository(LogEntity);
  const total = await applyFilter(repository.createQueryBuilder('log'), consume, true)
    .select('COALESCE(SUM(log.quota), 0)', 'quota')
    .getRawOne<{ quota: number | string }>();
  const recent = await applyFilter(repository.createQueryBuilder('log'), consume, false)
    .andWhere('log.created_at >= :since', { since: now - RATE_WINDOW_SECONDS })
    .select('COUNT(*)', 'rpm')
    .addSelect('COALESCE(SUM(log.prompt_tokens + log.completion_tokens), 0)', 'tpm')
    .getRawOne<{ rpm: number | string; tpm: number | string }>();
  return { quota: Number(total?.quota ?? 0), rpm: Number(recent?.rpm ?? 0), tpm: Number(recent?.tpm ?? 0) };
}

/**
 * Deletes logs created before `before` (unix seconds), `batchSize` rows per statement, and
 * returns how many went. Each batch commits on its own, so the table stays usable meanwhile.
 */
export async function deleteLogsBefore(db: DataSource, before: number, batchSize = LOG_DELETE_BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    // The sub-select walks the created_at index; LIMIT inside it works on both databases.
    const result = await db
      .createQueryBuilder()
      .delete()
      .from(LogEntity)
      .where('id IN (SELECT id FROM logs WHERE created_at < :before LIMIT :limit)', { before, limit: batchSize })
      .execute();
    const affected = result.affected ?? 0;
    deleted += affected;
    if (affected < batchSize) return deleted;
  }
}

export const LOG_RETENTION_JOB = JobName.BillingLogRetention;

/** One retention run: deletes logs older than LogRetentionDays (0 keeps everything). Returns the count. */
export async function runLogRetention(context: BillingContext, now = Date.now()): Promise<number> {
  const days = context.options.get('LogRetentionDays');
  if (days <= 0) return 0;
  const deleted = await deleteLogsBefore(context.db, Math.floor((now - days * DAY_MS) / 1000));
  if (deleted) context.logger.info({ deleted, days }, 'old logs deleted (retention)');
  return deleted;
}

/** The daily retention job, its runs recorded; one schedule across replicas (the Jobs port dedupes by name). */
export async function registerLogRetention(context: BillingContext): Promise<void> {
  await context.jobs.work(
    LOG_RETENTION_JOB,
    recordedJob(
      LOG_RETENTION_JOB,
      async () => {
        const days = context.options.get('LogRetentionDays');
        // not a console message: a job's summary, recorded in the job run list as it is.
        if (days <= 0) return { skipped: 'LogRetentionDays is 0: logs are kept' };
        const deleted = await runLogRetention(context);
        // not a console message: a job's summary, recorded in the job run list as it is.
        return `deleted ${deleted} log${deleted === 1 ? '' : 's'} older than ${days} day${days === 1 ? '' : 's'}`;
      },
      { kv: context.kv, logger: context.logger },
    ),
  );
  await context.jobs.repeat(LOG_RETENTION_JOB, {}, { everyMs: DAY_MS });
}
