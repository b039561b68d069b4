import { z } from 'zod';
import { pageQuerySchema } from './envelope.js';
import { isSecretOption, optionKeys } from './options.js';

/**
 * The audit trail (issue 22, item 13; docs/security.md, "Audit trail"): every admin or root action
 * that changes a user, a balance, a role, a channel, an option or a webhook, or reveals a secret,
 * is one record. The owning service publishes it after its change committed
 * (`<service>.audit.recorded`, one payload schema for all four); identity stores it and serves it
 * to root at GET /api/audit/.
 */

/** The services whose admin actions are audited; each publishes `<service>.audit.recorded`. */
export const auditServices = ['identity', 'billing', 'channels', 'notifier'] as const;
export type AuditService = (typeof auditServices)[number];

/** The subject each service publishes its records on. */
export const auditSubjects = {
  identity: 'identity.audit.recorded',
  billing: 'billing.audit.recorded',
  channels: 'channels.audit.recorded',
  notifier: 'notifier.audit.recorded',
} as const satisfies Record<AuditService, `${AuditService}.audit.recorded`>;

export const auditTargetTypes = ['user', 'channel', 'option', 'webhook', 'redemption', 'topup'] as const;
export type AuditTargetType = (typeof auditTargetTypes)[number];

/** Every audited action, `<target type>.<what happened>`; a closed list, so filters and the console know them all. */
export const auditActions = [
  'user.created',
  'user.updated',
  'user.deleted',
  'user.role_changed',
  'user.status_changed',
  'user.quota_changed',
  'user.2fa_reset',
  'user.passkey_reset',
  'channel.created',
  'channel.updated',
  'channel.deleted',
  'channel.key_revealed',
  'channel.private_network_set',
  'option.updated',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'redemption.created',
  'redemption.updated',
  'redemption.deleted',
  'topup.completed',
] as const;
export type AuditAction = (typeof auditActions)[number];

/** What a secret's value becomes in a record (when it has one; an empty value stays empty). */
export const AUDIT_MASK = '***';

/** Fields no record ever shows, whatever the target: credentials and what is derived from them. */
const alwaysSecretFields = [
  'password',
  'password_hash',
  'access_token',
  'access_token_hash',
  'secret',
  'secret_sealed',
  'secret_encrypted',
  'key_encrypted',
  'key_hash',
  'totp_secret',
  'backup_codes',
];

/**
 * The secret fields of each target type, besides the ones above: a channel's upstream key, a
 * redemption code (a bearer of money), the options marked secret in options.ts (an option record's
 * field is the option key). A record shows them as `***` (or '' when empty) and names them only
 * when they changed, so "the key was replaced" is visible and the key is not.
 */
export const auditSecretFields: Record<AuditTargetType, readonly string[]> = {
  user: alwaysSecretFields,
  channel: [...alwaysSecretFields, 'key'],
  option: [...alwaysSecretFields, ...optionKeys.filter(isSecretOption)],
  webhook: alwaysSecretFields,
  redemption: [...alwaysSecretFields, 'key'],
  topup: alwaysSecretFields,
};

/** A record's before or after: a JSON object of the target's fields. */
export type AuditValues = Record<string, unknown>;

function maskValue(value: unknown): unknown {
  return value === '' || value === null || value === undefined ? value : AUDIT_MASK;
}

/** The values with every secret field of the target type masked, at any depth (never its value; '' and null stay). */
export function maskAuditValues(type: AuditTargetType, values: AuditValues | null): AuditValues | null {
  if (values === null) return null;
  const secret = new Set(auditSecretFields[type]);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([field, inner]) => [field, secret.has(field) ? maskValue(inner) : walk(inner)]));
  };
  return walk(values) as AuditValues;
}

/**
 * An edit as the fields it changed: both sides reduced to the fields whose values differ
 * (compared before masking, so a replaced secret shows as changed). Empty when nothing changed.
 */
export function changedAuditValues(before: AuditValues, after: AuditValues): { before: AuditValues; after: AuditValues } {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (field) => JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field] ?? null),
  );
  return {
    before: Object.fromEntries(fields.map((field) => [field, before[field] ?? null])),
    after: Object.fromEntries(fields.map((field) => [field, after[field] ?? null])),
  };
}

/** Who did it, as the gateway authenticated them. */
export const auditActorSchema = z.object({ user_id: z.number().int(), username: z.string().max(64), role: z.number().int() });
export type AuditActor = z.infer<typeof auditActorSchema>;

/** What it was done to: the type, its id (an option's key), and a name to show (username, channel name, URL...). */
export const auditTargetSchema = z.object({
  type: z.enum(auditTargetTypes),
  id: z.string().min(1).max(128),
  label: z.string().max(255),
});
export type AuditTarget = z.infer<typeof auditTargetSchema>;

const auditValuesSchema = z.record(z.string(), z.unknown()).nullable();

/** One audit record, as published on the bus and answered by GET /api/audit/. */
export const auditRecordSchema = z.object({
  /** Unique (a UUID): the event id and the store's primary key, so a redelivery is stored once. */
  id: z.string().min(1).max(64),
  /** When the change committed, ms since epoch. */
  time: z.number().int().positive(),
  /** The service that made the change. */
  service: z.enum(auditServices),
  actor: auditActorSchema,
  action: z.enum(auditActions),
  target: auditTargetSchema,
  /**
   * The target's fields before the change (null when it is new, or nothing changed: a key reveal);
   * for edits only the fields that changed. Secret fields are masked.
   */
  before: auditValuesSchema,
  /** The target's fields after the change (null when it is gone, or nothing changed); as `before`. */
  after: auditValuesSchema,
  /** The client's IP as the gateway saw it (behind a trusted proxy, the forwarded one). */
  ip: z.string().max(64),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

const timestamp = z.coerce.number().int().min(0).max(253_402_300_799);

/** GET /api/audit/ (root): a page of records, newest first; blank filters (as the console sends them) mean all. */
export const auditQuerySchema = pageQuerySchema.extend({
  /** A username (exact), or a user id. */
  actor: z.string().trim().max(64).default(''),
  action: z.enum([...auditActions, '']).default(''),
  target_type: z.enum([...auditTargetTypes, '']).default(''),
  target_id: z.string().trim().max(128).default(''),
  /** Unix seconds, inclusive. */
  start_timestamp: timestamp.optional(),
  end_timestamp: timestamp.optional(),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;
