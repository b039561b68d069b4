import dayjs from 'dayjs';
import type { UsageRow } from '@aigw/contracts';

/**
 * The dashboard's grouping of the server's hourly rows (GET /api/data/) into hours, days or
 * weeks, per model. Pure, so the bucketing is unit-tested on its own. Times are local.
 */

/** docs/product.md section 9: the dashboard's granularities. */
export const granularities = ['hour', 'day', 'week'] as const;
export type Granularity = (typeof granularities)[number];

/** status.data_export_default_time when it is a known granularity, else hour. */
export function toGranularity(value: string | undefined): Granularity {
  return (granularities as readonly string[]).includes(value ?? '') ? (value as Granularity) : 'hour';
}

export interface Bucket {
  /** Start of the bucket, ms. */
  time: number;
  label: string;
  /** Per model. */
  quota: Record<string, number>;
  count: Record<string, number>;
}

export interface ModelShare {
  model: string;
  quota: number;
  count: number;
  tokens: number;
}

export interface UsageSummary {
  buckets: Bucket[];
  /** Models by consumption, largest first (the charts' series order). */
  models: ModelShare[];
  totals: { quota: number; tokens: number; count: number };
}

/** Start (ms) of the bucket holding `ms`; weeks start on Monday. */
export function bucketStart(ms: number, granularity: Granularity): number {
  const time = dayjs(ms);
  if (granularity === 'hour') return time.startOf('hour').valueOf();
  const day = time.startOf('day');
  if (granularity === 'day') return day.valueOf();
  return day.subtract((day.day() + 6) % 7, 'day').valueOf();
}

/** The next bucket's start; calendar arithmetic, so days across a DST change stay whole. */
export function nextBucket(start: number, granularity: Granularity): number {
  return dayjs(start)
    .add(granularity === 'week' ? 7 : 1, granularity === 'hour' ? 'hour' : 'day')
    .valueOf();
}

/** hour: "05-06 14:00"; day: "05-06"; week: "05-05 - 05-11". */
export function bucketLabel(start: number, granularity: Granularity): string {
  const time = dayjs(start);
  if (granularity === 'hour') return time.format('MM-DD HH:00');
  if (granularity === 'day') return time.format('MM-DD');
  return `${time.format('MM-DD')} - ${time.add(6, 'day').format('MM-DD')}`;
}

/** Empty buckets between two with data are filled in, up to this many buckets in all. */
const MAX_FILLED_BUCKETS = 1000;

export function summarize(rows: UsageRow[], granularity: Granularity): UsageSummary {
  const byTime = new Map<number, Bucket>();
  const byModel = new Map<string, ModelShare>();
  const totals = { quota: 0, tokens: 0, count: 0 };

  for (const row of rows) {
    const time = bucketStart(row.created_at * 1000, granularity);
    let bucket = byTime.get(time);
    if (!bucket) {
      bucket = { time, label: bucketLabel(time, granularity), quota: {}, count: {} };
      byTime.set(time, bucket);
    }
    bucket.quota[row.model_name] = (bucket.quota[row.model_name] ?? 0) + row.quota;
    bucket.count[row.model_name] = (bucket.count[row.model_name] ?? 0) + row.count;

    const share = byModel.get(row.model_name) ?? { model: row.model_name, quota: 0, count: 0, tokens: 0 };
    share.quota += row.quota;
    share.count += row.count;
    share.tokens += row.token_used;
    byModel.set(row.model_name, share);

    totals.quota += row.quota;
    totals.tokens += row.token_used;
    totals.count += row.count;
  }

  const times = [...byTime.keys()].sort((a, b) => a - b);
  if (times.length > 1) {
    // A continuous time axis: lines would otherwise join points across idle hours.
    const filled: number[] = [];
    for (let time = times[0]!; time <= times[times.length - 1]! && filled.length <= MAX_FILLED_BUCKETS; time = nextBucket(time, granularity)) {
      filled.push(time);
    }
    if (filled.length <= MAX_FILLED_BUCKETS) {
      for (const time of filled) {
        if (!byTime.has(time)) byTime.set(time, { time, label: bucketLabel(time, granularity), quota: {}, count: {} });
      }
    }
  }

  const buckets = [...byTime.values()].sort((a, b) => a.time - b.time);
  const models = [...byModel.values()].sort((a, b) => b.quota - a.quota || b.count - a.count || a.model.localeCompare(b.model));
  return { buckets, models, totals };
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The dashboard's opening window: one day for hours, a week for days, 30 days for weeks,
 * ending one hour ahead. Users may look 30 days at most (the server refuses more).
 */
export function defaultDashboardWindow(granularity: Granularity, now = Date.now()): { start: number; end: number } {
  const end = now + HOUR_MS;
  const span = granularity === 'hour' ? DAY_MS : granularity === 'day' ? 7 * DAY_MS : 30 * DAY_MS;
  return { start: end - span, end };
}
