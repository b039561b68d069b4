import { z } from 'zod';

/**
 * Background jobs whose last run is recorded (platform `recordedJob`, stored in the shared Kv)
 * and listed to root by `GET /api/job/`. This is the one list of their names: the route shows
 * every job here, also those that never ran yet.
 */
export const JobName = {
  ChannelsTestAll: 'channels.test-all',
  ChannelsBalanceAll: 'channels.balance-all',
  BillingLogRetention: 'billing.logs.retention',
  IdentitySessionsSweep: 'identity.sessions.sweep',
  RelayHoldsSweep: 'relay.holds.sweep',
  RelayTasksPoll: 'relay.tasks.poll',
  BillingPendingSweep: 'billing.pending.sweep',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];

export interface RecordedJobInfo {
  name: JobName;
  /** The service whose workers run it. */
  service: 'identity' | 'billing' | 'channels' | 'relay';
  /** When it runs, in words (the console shows it). */
  schedule: string;
  /** What one run does. */
  description: string;
}

/** In the order the console lists them. */
export const recordedJobs: readonly RecordedJobInfo[] = [
  {
    name: JobName.ChannelsTestAll,
    service: 'channels',
    schedule: 'every ChannelTestFrequency minutes (0 = off), and the "test all" button',
    description: 'Tests every enabled and automatically disabled channel; disables failing or slow ones and enables recovered ones per the monitoring options.',
  },
  {
    name: JobName.ChannelsBalanceAll,
    service: 'channels',
    schedule: 'every ChannelUpdateFrequency minutes (0 = off), and the "update balances" button',
    description: 'Reads the upstream balance of every enabled channel.',
  },
  {
    name: JobName.BillingLogRetention,
    service: 'billing',
    schedule: 'daily',
    description: 'Deletes logs older than LogRetentionDays (0 keeps everything).',
  },
  {
    name: JobName.IdentitySessionsSweep,
    service: 'identity',
    schedule: 'hourly',
    description: 'Removes expired console sessions.',
  },
  {
    name: JobName.RelayHoldsSweep,
    service: 'relay',
    schedule: 'every 30 seconds',
    description:
      'Gives back the quota held by requests of a relay that stopped (its lease ended or it restarted) or that outlived their longest possible duration, and publishes their usage records (nothing charged).',
  },
  {
    name: JobName.RelayTasksPoll,
    service: 'relay',
    schedule: 'every 15 seconds (TASK_POLL_INTERVAL_MS)',
    description:
      'Asks the upstreams about unfinished Midjourney and Suno tasks, a batch per channel, and stores what changed; a task the upstream failed, or unfinished after TASK_TIMEOUT_MINUTES, becomes FAILURE and its charge goes back to the user and the API key, once.',
  },
  {
    name: JobName.BillingPendingSweep,
    service: 'billing',
    schedule: 'every 30 seconds',
    description:
      'Records the requests a stopped relay never reported and whose holds Redis lost (no usage, nothing charged), so every forwarded request has exactly one usage record.',
  },
];

export const jobOutcomes = ['ok', 'failed', 'skipped'] as const;
export type JobOutcome = (typeof jobOutcomes)[number];

/** One finished run of a recorded job. */
export const jobRunSchema = z.object({
  /** Unix seconds. */
  started_at: z.number().int(),
  /** Unix seconds. */
  finished_at: z.number().int(),
  duration_ms: z.number().int().min(0),
  /** `skipped`: another run held the job's lock (see last_skipped), or the job had nothing to do by configuration. */
  outcome: z.enum(jobOutcomes),
  /** What it did ("tested 12 channels, 1 disabled"), or the error message of a failed run. */
  summary: z.string(),
});
export type JobRun = z.infer<typeof jobRunSchema>;

/** A job's schedule in the job store (BullMQ on Redis, or the in-process timers), as `GET /api/job/` shows it. */
export const jobScheduleStatusSchema = z.object({
  /**
   * The answering process wants this schedule, so it re-creates it when the store lost it (a
   * Redis restart without persistence, FLUSHALL). All-in-one that process runs every service;
   * distributed, the notifier answers and wants none: a lost schedule then shows as neither
   * registered nor wanted until its own service re-created it (that service's /readyz names it).
   */
  wanted: z.boolean(),
  /** Interval between runs; null when the job is not scheduled. */
  every_ms: z.number().int().nullable(),
  /** The store holds the schedule now. */
  registered: z.boolean(),
  /** Unix seconds of the next run; null when not registered. */
  next_run_at: z.number().int().nullable(),
});
export type JobScheduleStatus = z.infer<typeof jobScheduleStatusSchema>;

/** An entry of `GET /api/job/`. */
export const jobViewSchema = z.object({
  name: z.string(),
  service: z.string(),
  schedule: z.string(),
  description: z.string(),
  /**
   * The last run that did its work (ok, failed, or skipped by itself when configured off); null
   * until the job ran once (records live in the Kv store, so an in-memory one starts empty).
   */
  last_run: jobRunSchema.nullable(),
  /** The last run skipped because another run held the job's lock (kept apart, so it never hides the outcome of that run). */
  last_skipped: jobRunSchema.nullable(),
  /** Whether the job store holds the schedule now, and its next run. */
  schedule_status: jobScheduleStatusSchema,
});
export type JobView = z.infer<typeof jobViewSchema>;
