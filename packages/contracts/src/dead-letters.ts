import { z } from 'zod';
import { pageQuerySchema } from './envelope.js';

/**
 * Dead letters (issue 19, item 3; docs/architecture.md section 3.10): an event a consumer failed
 * on its last delivery (or could not decode) is kept in the consuming service's own database
 * instead of dropped, announced once on `<service>.dead_letter.recorded`, and root lists,
 * replays and deletes them at `/api/dead_letter/<service>/` (served by that service).
 */

/** The services that consume events, each keeping the dead letters of its own consumers. */
export const deadLetterServices = ['identity', 'billing', 'channels', 'relay', 'notifier'] as const;
export type DeadLetterService = (typeof deadLetterServices)[number];

/** The subject each service announces its new dead letters on. */
export const deadLetterSubjects = {
  identity: 'identity.dead_letter.recorded',
  billing: 'billing.dead_letter.recorded',
  channels: 'channels.dead_letter.recorded',
  relay: 'relay.dead_letter.recorded',
  notifier: 'notifier.dead_letter.recorded',
} as const satisfies Record<DeadLetterService, `${DeadLetterService}.dead_letter.recorded`>;

/**
 * The payload of `<service>.dead_letter.recorded`. The event's payload is not in it: it may be a
 * mail request carrying a one-time code, and integrators receive these announcements.
 */
export const deadLetterRecordedSchema = z.object({
  service: z.enum(deadLetterServices),
  /** The row id in the service's dead letters (the console's and the replay route's id). */
  dead_letter_id: z.number().int(),
  /** The id of the event that failed. */
  event_id: z.string(),
  subject: z.string(),
  /** The durable consumer name, or the subscription's subject for a per-instance subscription. */
  consumer: z.string(),
  /** The last failure's message. */
  error: z.string(),
  /** Deliveries made, the last failed one included. */
  attempts: z.number().int().min(1),
  /** Unix seconds of the last failed delivery. */
  failed_at: z.number().int(),
  /** Dead letters the service holds now, this one included: what an alert would count. */
  waiting: z.number().int().min(1),
});
export type DeadLetterRecorded = z.infer<typeof deadLetterRecordedSchema>;

/** A dead letter as root sees it. */
export const deadLetterViewSchema = z.object({
  id: z.number().int(),
  event_id: z.string(),
  subject: z.string(),
  consumer: z.string(),
  /** The subject (a pattern with wildcards, maybe) the consumer subscribed to. */
  pattern: z.string(),
  /**
   * The event's data as JSON text (an undecodable message: its body as received); null for the
   * subjects whose payload belongs to a user alone (mail requests carry one-time codes).
   */
  payload: z.string().nullable(),
  error: z.string(),
  attempts: z.number().int(),
  /** Unix seconds: when the event was published (its first delivery follows at once unless the consumer was behind). */
  published_at: z.number().int(),
  /** Unix seconds of the last failed delivery or replay. */
  failed_at: z.number().int(),
  /** Unix seconds: when it became a dead letter. */
  created_at: z.number().int(),
});
export type DeadLetterView = z.infer<typeof deadLetterViewSchema>;

/** GET /api/dead_letter/<service>/: oldest first, the order a replay of all of them takes. */
export const deadLettersQuerySchema = pageQuerySchema;

/** The answer of POST /api/dead_letter/<service>/replay_all. */
export const deadLetterReplayAllSchema = z.object({
  /** Handled this time, and so deleted. */
  replayed: z.number().int(),
  /** Failed again (kept with the new error), or no consumer of theirs runs in the service now. */
  failed: z.number().int(),
});
export type DeadLetterReplayAll = z.infer<typeof deadLetterReplayAllSchema>;
