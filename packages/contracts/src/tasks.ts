import { z } from 'zod';
import { pageQuerySchema } from './envelope.js';

/**
 * The console's drawing (Midjourney, `/api/mj/`) and async task (music, `/api/task/`) lists:
 * admins read every user's, users their own (`/self`). The relay owns these tasks.
 */

const timeRange = {
  /** Unix seconds. */
  start_timestamp: z.coerce.number().int().min(0).optional(),
  end_timestamp: z.coerce.number().int().min(0).optional(),
};

/** GET /api/mj/ and /api/mj/self; `channel_id` is an admin filter. */
export const drawingQuerySchema = pageQuerySchema.extend({
  channel_id: z.coerce.number().int().min(0).optional(),
  mj_id: z.string().max(128).optional(),
  ...timeRange,
});

/** GET /api/task/ and /api/task/self; `channel_id` is an admin filter. */
export const taskQuerySchema = pageQuerySchema.extend({
  channel_id: z.coerce.number().int().min(0).optional(),
  task_id: z.string().max(128).optional(),
  ...timeRange,
});

/** A drawing task as the drawing list shows it. */
export const drawingTaskSchema = z.object({
  id: z.number().int().optional(),
  /** Unix seconds, or ms as the established product stores them (the relay's store: ms). */
  submit_time: z.number().int(),
  finish_time: z.number().int(),
  channel_id: z.number().int(),
  action: z.string(),
  mj_id: z.string(),
  code: z.number().int(),
  status: z.string(),
  /** "50%" */
  progress: z.string(),
  image_url: z.string(),
  prompt: z.string(),
  prompt_en: z.string(),
  fail_reason: z.string(),
  /** When the upstream started drawing, as submit_time; 0 before. */
  start_time: z.number().int().optional(),
  /** The upstream's description of the submit or result (a DESCRIBE's text, say). */
  description: z.string().optional(),
  /** JSON text: the follow-up buttons (`[{customId, label, emoji, ...}]`), '' when none. */
  buttons: z.string().optional(),
});
export type DrawingTask = z.infer<typeof drawingTaskSchema>;

/** An async (music) task as the task list shows it. */
export const asyncTaskSchema = z.object({
  id: z.number().int().optional(),
  submit_time: z.number().int(),
  finish_time: z.number().int(),
  progress: z.string(),
  channel_id: z.number().int(),
  platform: z.string(),
  action: z.string(),
  task_id: z.string(),
  status: z.string(),
  fail_reason: z.string(),
  /** When the upstream started the task, as submit_time; 0 before. */
  start_time: z.number().int().optional(),
  /** JSON text of the upstream's result (Suno: the clips with their audio and image links), '' before. */
  data: z.string().optional(),
});
export type AsyncTask = z.infer<typeof asyncTaskSchema>;

/** An async task as its bus events carry it: where it stands, never its prompt or result. */
export const taskUpdateSchema = z.object({
  /** The relay's task row id. */
  id: z.number().int(),
  /** 'midjourney', 'suno'. */
  platform: z.string().max(32),
  /** The upstream's task id. */
  task_id: z.string().max(128),
  user_id: z.number().int(),
  channel_id: z.number().int(),
  /** IMAGINE, UPSCALE, ..., MUSIC, LYRICS. */
  action: z.string().max(32),
  /** NOT_START, SUBMITTED, QUEUED, IN_PROGRESS, FAILURE, SUCCESS, UNKNOWN. */
  status: z.string().max(20),
  /** "0%".."100%" */
  progress: z.string().max(20),
  fail_reason: z.string().max(1024),
  /** Quota charged at submit. */
  quota: z.number().int().min(0),
  /** Unix milliseconds; 0: not yet. */
  submit_time: z.number().int(),
  start_time: z.number().int(),
  finish_time: z.number().int(),
});
export type TaskUpdate = z.infer<typeof taskUpdateSchema>;

/** The refund of a failed task's charge (see the `relay.task.refunded` event). */
export const taskRefundSchema = z.object({
  /** `task-refund-<task row id>`: the ledger's idempotency key, so the refund applies once. */
  refund_id: z.string().min(1).max(64),
  user_id: z.number().int().positive(),
  /** The API key charged at submit (0: none); a limited key gets its quota back too. */
  token_id: z.number().int().min(0),
  /** What the relay settled for the task (for the log); billing gives back what it recorded for `charges`. */
  quota: z.number().int().positive(),
  /**
   * The request ids of the task's charges (its submit, a modal confirming it): billing refunds
   * the sum its ledger holds for them, and waits (redelivery) until each has been recorded.
   */
  charges: z.array(z.string().min(1).max(64)).min(1).max(32),
  task: z.object({ id: z.number().int(), platform: z.string().max(32), task_id: z.string().max(128), action: z.string().max(32) }),
  /** The upstream's failure reason, or the timeout. */
  reason: z.string().max(1024),
  /** Unix seconds. */
  created_at: z.number().int(),
});
export type TaskRefund = z.infer<typeof taskRefundSchema>;
