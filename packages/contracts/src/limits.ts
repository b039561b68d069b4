import { z } from 'zod';
import { msg } from './messages/index.js';

/**
 * Usage limits (docs/architecture.md section 5.9): how many requests and tokens per minute and
 * per day, and how many requests at once, an API key, a user, a group, a model or a channel may
 * have. A field absent or 0 is unlimited. The relay enforces them before anything is held; each
 * scope stores its set where the scope lives (a token's and a user's rows, options for groups,
 * models and the users' default, a channel's row).
 */

const amount = (field: string) => {
  const invalid = msg('limits.amount_invalid', { field });
  return z.number({ error: invalid }).int(invalid).min(0, invalid).max(1_000_000_000, msg('limits.amount_too_large', { field })).optional();
};

/** The measures and windows a limit set has: nothing else (a window other than a minute or a day is refused). */
export const rateLimitFields = ['rpm', 'rpd', 'tpm', 'tpd', 'concurrency'] as const;
export type RateLimitField = (typeof rateLimitFields)[number];

export const rateLimitsSchema = z.strictObject(
  {
    /** Requests per minute. */
    rpm: amount('rpm'),
    /** Requests per day. */
    rpd: amount('rpd'),
    /** Tokens (prompt + completion) per minute. */
    tpm: amount('tpm'),
    /** Tokens per day. */
    tpd: amount('tpd'),
    /** Requests in flight at once. */
    concurrency: amount('concurrency'),
  },
  {
    error: (issue) => (issue.code === 'unrecognized_keys' ? msg('limits.unknown', { keys: issue.keys.join(', ') }) : undefined),
  },
);
export type RateLimits = z.infer<typeof rateLimitsSchema>;

/** A limit set as stored (JSON text, '' for none), read leniently: what does not parse limits nothing. */
export function parseRateLimits(text: string | null | undefined): RateLimits {
  if (!text || text.trim() === '') return {};
  try {
    const parsed = rateLimitsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** A limit set as stored: only its non-zero fields, '' when there are none. */
export function storedRateLimits(limits: RateLimits): string {
  const set = Object.fromEntries(rateLimitFields.flatMap((field) => (limits[field] ? [[field, limits[field]]] : [])));
  return Object.keys(set).length === 0 ? '' : JSON.stringify(set);
}

/** Whether a set limits anything. */
export function hasRateLimits(limits: RateLimits): boolean {
  return rateLimitFields.some((field) => (limits[field] ?? 0) > 0);
}

/** Option ModelRateLimits: per model, with overrides for the model within a group. */
export const modelRateLimitsSchema = z.record(
  z.string().min(1),
  rateLimitsSchema.extend({ groups: z.record(z.string().min(1), rateLimitsSchema).optional() }).strict(),
);
export type ModelRateLimits = z.infer<typeof modelRateLimitsSchema>;

/** Option GroupRateLimits: per user group, for each user of the group (as the user's own limits are). */
export const groupRateLimitsSchema = z.record(z.string().min(1), rateLimitsSchema);
export type GroupRateLimits = z.infer<typeof groupRateLimitsSchema>;

/**
 * The established product's per-group override of its per-user request limit
 * (ModelRequestRateLimitGroup): group -> [total requests, successful requests] per
 * ModelRequestRateLimitDurationMinutes.
 */
export const modelRequestRateLimitGroupSchema = z.record(z.string().min(1), z.tuple([z.number().int().min(0), z.number().int().min(0)]));

/** One measure's use now, as the console shows it beside the limit ("312 of 1,000 today"). */
export const limitUseSchema = z.object({
  field: z.enum(rateLimitFields),
  /** Requests or tokens counted in the window (the sliding estimate, as the limit sees it); concurrency: requests in flight now. */
  used: z.number().int(),
  /** Seconds until the window ends (concurrency: 0). */
  reset_seconds: z.number().int(),
});
export type LimitUse = z.infer<typeof limitUseSchema>;

/**
 * GET /api/limits/use: what a scope's limits count now (rpm, rpd, tpm, tpd, then concurrency). `key` (an API key: its owner or an
 * admin), `user` (oneself or an admin), `channel` and `model` (admins; a model within a group with
 * `group`).
 */
export const limitUseQuerySchema = z.object({
  scope: z.enum(['key', 'user', 'channel', 'model'], { error: msg('limits.scope_invalid') }),
  id: z.string().trim().min(1, msg('validation.required')).max(255),
  group: z.string().trim().max(64).optional(),
});
export type LimitUseQuery = z.infer<typeof limitUseQuerySchema>;
