import { z } from 'zod';
import { idSchema, pageQuerySchema } from './envelope.js';
import { eventSchemas, type EventSubject } from './events.js';
import { msg } from './messages/index.js';

/**
 * Root's webhook endpoints (`/api/webhook/*`, served by the notifier): the notifier POSTs every
 * event whose subject matches an endpoint's filter, signed with the endpoint's secret (the scheme
 * is in docs/events.md and services/notifier/src/webhooks/README.md).
 */

/**
 * Events never sent to webhooks: mail requests carry one-time codes and password-reset links,
 * which belong to the user they are mailed to, not to an integrator.
 */
export const webhookExcludedSubjects: readonly EventSubject[] = ['notifier.mail.requested'];

/** Every subject an endpoint can receive. */
export const webhookSubjects = (Object.keys(eventSchemas) as EventSubject[]).filter((subject) => !webhookExcludedSubjects.includes(subject));

/** The body subject of the signed ping sent by `POST /api/webhook/:id/test` (not a bus event). */
export const WEBHOOK_PING_SUBJECT = 'webhook.ping';

/** Headers of every webhook call. */
export const webhookHeaders = {
  /** The event id: the same on every retry of one delivery, so receivers can drop duplicates. */
  id: 'X-Webhook-Id',
  subject: 'X-Webhook-Subject',
  /** Unix seconds when this attempt was signed; receivers should refuse old ones (replays). */
  timestamp: 'X-Webhook-Timestamp',
  /** `sha256=` + hex HMAC-SHA256(secret, `${timestamp}.${raw body}`). */
  signature: 'X-Webhook-Signature',
} as const;

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 255;
export const WEBHOOK_SUBJECTS_MAX = 32;
export const WEBHOOK_PATTERN_MAX = 128;
/** A secret given by root must be at least this long (generated ones are 32 random bytes). */
export const WEBHOOK_SECRET_MIN = 32;
export const WEBHOOK_SECRET_MAX = 256;
/** Endpoints root may register; the notifier keeps them all in memory. */
export const WEBHOOK_ENDPOINTS_MAX = 100;

/**
 * Does a NATS-style pattern match a subject? `*` stands for exactly one token, a final `>` for
 * one or more tokens; anything else must be equal.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const wanted = pattern.split('.');
  const tokens = subject.split('.');
  for (let index = 0; index < wanted.length; index++) {
    const token = wanted[index]!;
    if (token === '>') return index === wanted.length - 1 && tokens.length > index;
    if (index >= tokens.length) return false;
    if (token !== '*' && token !== tokens[index]) return false;
  }
  return wanted.length === tokens.length;
}

/** What is wrong with a filter pattern: `malformed` (not a pattern), `no_match` (matches no deliverable event), or null. */
export function subjectPatternIssue(pattern: string): 'malformed' | 'no_match' | null {
  const tokens = pattern.split('.');
  const tokenValid = (token: string, index: number) => token === '*' || (token === '>' && index === tokens.length - 1) || /^[a-z0-9_-]+$/.test(token);
  if (!tokens.every(tokenValid)) return 'malformed';
  return webhookSubjects.some((subject) => subjectMatches(pattern, subject)) ? null : 'no_match';
}

/** Why a filter pattern is unusable, as the API says it (`msg(id)`), or null when it is fine. */
export function subjectPatternProblem(pattern: string): string | null {
  const issue = subjectPatternIssue(pattern);
  if (issue === 'malformed') {
    return msg('webhooks.pattern_malformed', { pattern });
  }
  if (issue === 'no_match') {
    const domains = [...new Set(webhookSubjects.map((subject) => subject.split('.')[0]))].join(', ');
    return msg('webhooks.pattern_no_match', { pattern, domains });
  }
  return null;
}

/** One entry of an endpoint's filter: `relay.usage.recorded`, `billing.>`, `*.channel.*`. */
export const webhookSubjectPatternSchema = z
  .string({ error: msg('webhooks.pattern_type') })
  .trim()
  .min(1, msg('webhooks.pattern_empty'))
  .max(WEBHOOK_PATTERN_MAX, msg('webhooks.pattern_too_long', { max: String(WEBHOOK_PATTERN_MAX) }))
  .superRefine((pattern, context) => {
    const problem = subjectPatternProblem(pattern);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

export const webhookSubjectsSchema = z
  .array(webhookSubjectPatternSchema, { error: msg('webhooks.subjects_type') })
  .min(1, msg('webhooks.subjects_empty'))
  .max(WEBHOOK_SUBJECTS_MAX, msg('webhooks.subjects_too_many', { max: String(WEBHOOK_SUBJECTS_MAX) }))
  .transform((patterns) => [...new Set(patterns)]);

/** http or https, no credentials in it (they would be logged and shown): the egress guard judges the address when saved and again on every delivery. */
export const webhookUrlSchema = z
  .string({ error: msg('webhooks.url_required') })
  .trim()
  .min(1, msg('webhooks.url_required'))
  .max(WEBHOOK_URL_MAX, msg('webhooks.url_too_long', { max: String(WEBHOOK_URL_MAX) }))
  .pipe(z.url({ protocol: /^https?$/, error: msg('webhooks.url_invalid') }))
  .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), msg('webhooks.url_credentials'));

export const webhookSecretSchema = z
  .string()
  .min(WEBHOOK_SECRET_MIN, msg('webhooks.secret_too_short', { min: String(WEBHOOK_SECRET_MIN) }))
  .max(WEBHOOK_SECRET_MAX, msg('webhooks.secret_too_long', { max: String(WEBHOOK_SECRET_MAX) }))
  .regex(/^[\x21-\x7e]+$/, msg('webhooks.secret_charset'));

const descriptionSchema = z
  .string()
  .trim()
  .max(WEBHOOK_DESCRIPTION_MAX, msg('webhooks.description_too_long', { max: String(WEBHOOK_DESCRIPTION_MAX) }));

/** POST /api/webhook/: without `secret` the server generates one. Either way it is shown once, in the answer. */
export const createWebhookBodySchema = z.object({
  url: webhookUrlSchema,
  subjects: webhookSubjectsSchema,
  description: descriptionSchema.default(''),
  enabled: z.boolean().default(true),
  secret: webhookSecretSchema.optional(),
});
export type CreateWebhookBody = z.input<typeof createWebhookBodySchema>;

/** PUT /api/webhook/: absent fields keep their value; the secret changes only by rotation. */
export const updateWebhookBodySchema = z.object({
  id: idSchema,
  url: webhookUrlSchema.optional(),
  subjects: webhookSubjectsSchema.optional(),
  description: descriptionSchema.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookBody = z.input<typeof updateWebhookBodySchema>;

/** POST /api/webhook/:id/rotate: a new secret (generated unless given), shown once in the answer. */
export const rotateWebhookSecretBodySchema = z.object({ secret: webhookSecretSchema.optional() }).default({});

/** An endpoint as root sees it: a whitelist, the secret is never a field (rule R4). */
export const webhookEndpointSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  subjects: z.array(z.string()),
  description: z.string(),
  enabled: z.boolean(),
  /** Unix seconds. */
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** The create and rotate answers: the only places the secret ever appears. */
export const webhookWithSecretSchema = webhookEndpointSchema.extend({ secret: z.string() });
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

/** The answer of `POST /api/webhook/:id/test`. */
export const webhookTestResultSchema = z.object({
  ok: z.boolean(),
  /** HTTP status of the endpoint's answer; 0 when there was none. */
  status_code: z.number().int(),
  duration_ms: z.number().int(),
  /** Why it failed ('' when ok). */
  error: z.string(),
});
export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/** `notice`: a user's own notice by the method they chose (Bark, Gotify, WxPusher, their webhook). */
export const deliveryKinds = ['mail', 'webhook', 'notice'] as const;
export const deliveryStatuses = ['pending', 'sent', 'failed'] as const;

/** A mail or webhook delivery as root sees it (the payload is not shown: mails carry codes and links). */
export const deliveryViewSchema = z.object({
  id: z.number().int(),
  kind: z.enum(deliveryKinds),
  /** Mail: the recipient. Webhook: the endpoint URL. */
  target: z.string(),
  /** Mail: the template. Webhook: the event subject. */
  topic: z.string(),
  /** Webhook: the endpoint id (0 for mail). */
  webhook_id: z.number().int(),
  status: z.enum(deliveryStatuses),
  attempts: z.number().int(),
  /** HTTP status of the last webhook attempt (0: none). */
  response_status: z.number().int(),
  last_error: z.string(),
  /** Unix seconds. */
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type DeliveryView = z.infer<typeof deliveryViewSchema>;

/** GET /api/webhook/deliveries: blank filters (as the console sends them) mean all. */
export const deliveriesQuerySchema = pageQuerySchema.extend({
  kind: z
    .enum([...deliveryKinds, ''])
    .default('')
    .transform((value) => value || undefined),
  status: z
    .enum([...deliveryStatuses, ''])
    .default('')
    .transform((value) => value || undefined),
});
export type DeliveriesQuery = z.infer<typeof deliveriesQuerySchema>;
