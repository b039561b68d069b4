import { z } from 'zod';
import { rateLimitsSchema } from './limits.js';
import { auditRecordSchema } from './audit.js';
import { MAX_MODEL_NAME_LENGTH, resolvedTokenSchema, usageRecordSchema } from './billing.js';
import { channelFailureSchema, channelOperationSchema, routingChannelSchema } from './channels.js';
import { deadLetterRecordedSchema } from './dead-letters.js';
import { taskRefundSchema, taskUpdateSchema } from './tasks.js';
import { defaultNotificationSettings, notificationSettingsSchema } from './notifications.js';
import { localeSchema } from './locale.js';
import { msg } from './messages/index.js';

/**
 * The bus event map: subject -> payload schema. Subjects are `domain.noun.past-tense-verb`.
 * Every event is published after the change it reports is committed; consumers validate the
 * payload before acting and must be idempotent (delivery is at least once, deduplicated by the
 * event id within the dedupe window).
 */

/**
 * Billing's durable consumer of the relay's usage events. On the in-process bus the relay's
 * usage outbox lets a record go only once this consumer committed it (PublishOptions.confirmedBy).
 */
export const USAGE_LEDGER_CONSUMER = 'billing-usage';

/** The two console languages; mails are written in the recipient's. */

const userSnapshot = z.object({
  user_id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  email: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  group: z.string(),
  /** The user's own usage limits (the user editor's); absent from an older publisher: none. */
  rate_limits: rateLimitsSchema.default({}),
});

export const eventSchemas = {
  /**
   * Published by identity when a user registered or was created by an admin. Billing opens the
   * account (QuotaForNewUser, invite rewards); notifier may greet.
   */
  'identity.user.registered': userSnapshot.extend({
    /** Inviter's user id, or 0. */
    inviter_id: z.number().int(),
    /** How the user came: self-registration or an admin. */
    source: z.enum(['register', 'admin', 'setup']),
  }),
  /**
   * Published by identity after any change of a user's profile, role, status or group (state
   * transfer: the full snapshot). Billing and the relay refresh their copies of status and group.
   */
  'identity.user.updated': userSnapshot,
  /** Published by identity when a user is deregistered (soft delete). Everyone drops the user. */
  'identity.user.deleted': z.object({ user_id: z.number().int() }),
  /**
   * Published by identity when sessions are revoked: one session (`session_hash`) on logout, or
   * all of a user's sessions (`session_hash` null) on password change, ban or deletion. Gateways
   * drop what they cached.
   */
  'identity.session.revoked': z.object({ user_id: z.number().int(), session_hash: z.string().nullable() }),
  /**
   * Published by identity after an option changed. Secret options carry `value: null`: services
   * that need the secret read it with the `identity.option.snapshot` request. `version` grows with
   * every write of the key, so a late redelivery never overwrites a newer value.
   */
  'identity.option.updated': z.object({
    key: z.string(),
    value: z.string().nullable(),
    secret: z.boolean(),
    version: z.number().int(),
  }),
  /**
   * Published by any service that needs an email sent (identity: verification codes and
   * password-reset links). The notifier delivers it over SMTP with the configured options.
   */
  'notifier.mail.requested': z.object({
    to: z.string(),
    template: z.enum(['verification_code', 'password_reset']),
    params: z.record(z.string(), z.string()),
    /** The language of the console that asked (its Accept-Language). */
    locale: localeSchema.default('zh-CN'),
  }),
  /**
   * Published by the notifier when a mail, webhook or user notice (Bark, Gotify, WxPusher, a
   * user's webhook) delivery failed for good (after its retries). Root sees these in the console;
   * integrators may alert on them.
   */
  'notifier.delivery.failed': z.object({
    kind: z.enum(['mail', 'webhook', 'notice']),
    /** The notifier's delivery record id. */
    delivery_id: z.number().int(),
    /** Mail: the recipient address. Webhook: the endpoint URL. Notice: the method and host (`bark api.day.app`). */
    target: z.string(),
    /** Mail: the template. Webhook: the event subject. Notice: its kind (`low_balance`). */
    topic: z.string(),
    attempts: z.number().int().min(1),
    error: z.string(),
  }),
  /**
   * Published by billing when a settled request took a user's balance from at or above
   * QuotaRemindThreshold to below it (event id: `balance-dropped-<request id>`; the bare request id
   * is the usage event's, and the in-process bus dedupes ids across subjects). The notifier warns
   * the user, at most once per 2 hours.
   */
  'billing.balance.dropped': z.object({
    user_id: z.number().int(),
    quota: z.number().int(),
    threshold: z.number().int(),
    request_id: z.string(),
  }),
  /**
   * Published by billing after a token was created or changed (the relay refreshes its cache).
   * Carries the resolved view (no key) and the key hash that caches are keyed by.
   */
  'billing.token.updated': resolvedTokenSchema.extend({ key_hash: z.string() }),
  /** Published by billing after a token was deleted. */
  'billing.token.deleted': z.object({ token_id: z.number().int(), user_id: z.number().int(), key_hash: z.string() }),
  /**
   * Published by billing after an account's balance was changed outside usage (top-up,
   * redemption, admin edit, transfer, grant), or its owner's status or group changed.
   */
  'billing.account.updated': z.object({
    user_id: z.number().int(),
    quota: z.number().int(),
    status: z.number().int(),
    group: z.string(),
    role: z.number().int(),
  }),
  /**
   * Published by billing after an online top-up order was paid and credited, once per order
   * (event id: `topup-completed-<trade_no>`), after the commit: on the payment gateway's verified
   * notify, or when an admin completed the order by hand (`completed_by` is then the admin's id).
   * Billing also publishes `billing.account.updated` for the new balance. Integrators (webhooks)
   * may record revenue; no service consumes it.
   */
  'billing.topup.completed': z.object({
    trade_no: z.string(),
    user_id: z.number().int(),
    /** Quota credited. */
    quota: z.number().int(),
    /** Money paid, 2 decimals, in the gateway's currency. */
    money: z.string(),
    gateway: z.string(),
    payment_method: z.string(),
    /** 0: the gateway's notify; else the admin's user id. */
    completed_by: z.number().int(),
    /** Unix seconds. */
    completed_at: z.number().int(),
  }),
  /**
   * Published by the relay once per logical request, after settling the live counters
   * (id = request id, also the JetStream message id). Billing persists it exactly once.
   */
  'relay.usage.recorded': usageRecordSchema,
  /**
   * Published by the relay for a request still running a second after it was first forwarded
   * upstream (event id: `started-<request id>`; shorter requests end with their record first and
   * are never announced). Billing keeps it as a pending row until the
   * request's `relay.usage.recorded` arrives; should the relay die first (its lease ends, a newer
   * incarnation takes its name, or `expires_at` passes), billing records `record` (no usage,
   * nothing charged) so every forwarded request has exactly one usage record, even when Redis lost
   * the hold. A `relay.usage.recorded` that arrives first wins (same request id).
   */
  'relay.request.started': z.object({
    /** The usage record to persist should the relay never report (its usage is zero). */
    record: usageRecordSchema,
    /** The relay instance serving it: `name#incarnation` (see the quota gate's leases). */
    owner: z.string().min(3).max(200),
    /** Epoch ms: the request cannot last longer (its hold expires then). */
    expires_at: z.number().int().positive(),
  }),
  /** Published by channels after a channel was created or changed (state transfer: the routing row, never the key). */
  'channels.channel.updated': routingChannelSchema,
  /**
   * Published by channels after it disabled a channel automatically (status 3): an upstream
   * failure matched the rules or a test was too slow. The notifier alerts root.
   */
  'channels.channel.disabled': z.object({
    channel_id: z.number().int(),
    name: z.string(),
    reason: z.string(),
    /** Unix seconds. */
    time: z.number().int(),
  }),
  /** Published by channels after a channel was deleted. */
  'channels.channel.deleted': z.object({ id: z.number().int() }),
  /**
   * Published by identity after an admin's or root's change of a user (create, profile, role,
   * status, second factors, deletion) or an option committed: one audit record (event id: the
   * record id), secrets masked. Identity stores it for GET /api/audit/; integrators may keep it.
   */
  'identity.audit.recorded': auditRecordSchema,
  /**
   * Published by billing after an admin's change of a balance (the user editor's quota,
   * `user.quota_changed`, beside the manage log the user sees), a redemption code or a top-up
   * completed by hand committed: one audit record (event id: the record id). Identity stores it.
   */
  'billing.audit.recorded': auditRecordSchema,
  /**
   * Published by channels after an admin's change of a channel (create, edit, private-network
   * flag, delete) committed, or root read a channel key: one audit record (event id: the record
   * id), the key never in it. Identity stores it.
   */
  'channels.audit.recorded': auditRecordSchema,
  /**
   * Published by the notifier after root's change of a webhook endpoint (create, edit, new
   * secret, delete) committed: one audit record (event id: the record id), the secret never in
   * it. Identity stores it.
   */
  'notifier.audit.recorded': auditRecordSchema,
  /**
   * Published by the relay after an async task (Midjourney drawing, Suno music) changed: its
   * submit was accepted, or a poll (or the upstream's notify, verified by a poll) saw a new status
   * or progress, or it timed out (event id: `task-<id>-<status>-<progress>`, so a change seen by
   * two replicas is one event). Integrators follow task progress with it; no prompt or result in it.
   */
  'relay.task.updated': taskUpdateSchema,
  /**
   * Published by the relay when an async task it charged for ended in FAILURE (the upstream's
   * word, or TASK_TIMEOUT_MINUTES passed), and again until it was published (event id =
   * `refund_id`). Billing gives back what its ledger recorded for the task's `charges`, to the
   * user and the API key, in one transaction with a ledger entry keyed by `refund_id` (exactly
   * once) and a system log.
   */
  'relay.task.refunded': taskRefundSchema,
  /** Published by the relay after an upstream attempt failed; channels applies the auto-disable rules. */
  'relay.channel.failed': channelFailureSchema,
  /** Published by the relay after a channel answered well (a test, or traffic); channels may auto-enable it. */
  'relay.channel.succeeded': z.object({
    channel_id: z.number().int(),
    response_time_ms: z.number().int().min(0),
    test: z.boolean(),
    /** The key a multi-key channel's test used. */
    key_index: z.number().int().min(0).optional(),
  }),
  /**
   * Published by the relay when a usage limit refused a request (docs/architecture.md section
   * 5.9), at most once per limit every 10 seconds however many it refuses meanwhile
   * (`refused` counts them): integrators alert on it.
   */
  'relay.limit.exceeded': z.object({
    /** key, user, model, group_model (the model within a group), user_requests (the established product's per-user limit), channels (every channel at its limit). */
    scope: z.enum(['key', 'user', 'model', 'group_model', 'user_requests', 'channels']),
    field: z.enum(['rpm', 'rpd', 'tpm', 'tpd', 'concurrency', 'success']),
    limit: z.number().int(),
    user_id: z.number().int(),
    token_id: z.number().int(),
    group: z.string(),
    model: z.string(),
    request_id: z.string(),
    retry_after_ms: z.number().int().min(0),
    /** Requests this limit refused since the last event about it (this one included). */
    refused: z.number().int().min(1),
    time: z.number().int(),
  }),
  /**
   * Published by identity once per event one of its consumers gave up on after its last delivery
   * (or could not decode), after it was stored as a dead letter (event id:
   * `dead-letter-identity-<dead_letter_id>`). Root replays it from the console; integrators alert.
   */
  'identity.dead_letter.recorded': deadLetterRecordedSchema,
  /**
   * Published by billing once per event one of its consumers gave up on after its last delivery
   * (or could not decode), after it was stored as a dead letter (event id:
   * `dead-letter-billing-<dead_letter_id>`). Root replays it from the console; integrators alert.
   */
  'billing.dead_letter.recorded': deadLetterRecordedSchema,
  /**
   * Published by channels once per event one of its consumers gave up on after its last delivery
   * (or could not decode), after it was stored as a dead letter (event id:
   * `dead-letter-channels-<dead_letter_id>`). Root replays it from the console; integrators alert.
   */
  'channels.dead_letter.recorded': deadLetterRecordedSchema,
  /**
   * Published by the relay once per event one of its consumers gave up on after its last delivery
   * (or could not decode), after it was stored as a dead letter (event id:
   * `dead-letter-relay-<dead_letter_id>`). Root replays it from the console; integrators alert.
   */
  'relay.dead_letter.recorded': deadLetterRecordedSchema,
  /**
   * Published by the notifier once per event one of its consumers gave up on after its last
   * delivery (or could not decode), after it was stored as a dead letter (event id:
   * `dead-letter-notifier-<dead_letter_id>`). Root replays it from the console; integrators alert.
   */
  'notifier.dead_letter.recorded': deadLetterRecordedSchema,
} as const;

export type EventSubject = keyof typeof eventSchemas;
export type EventPayload<S extends EventSubject> = z.infer<(typeof eventSchemas)[S]>;

/** An option row as the snapshot request returns it (secrets included: internal only). */
export const optionSnapshotRowSchema = z.object({ key: z.string(), value: z.string(), version: z.number().int() });

/** Who a console credential belongs to, as the gateway needs it. */
export const authPrincipalSchema = z.object({
  user_id: z.number().int(),
  username: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  group: z.string(),
  /**
   * A super admin with the factory password on a server reachable beyond loopback (rule R8):
   * services refuse everything but reading the own profile and changing the password.
   */
  password_change_required: z.boolean(),
});
export type AuthPrincipal = z.infer<typeof authPrincipalSchema>;

/**
 * Request-reply map: subject -> request and response schemas. Used for reads that must be
 * fresh; the responder is the owning service.
 */
export const requestSchemas = {
  /** Answered by identity: every stored option with its version, secrets included. */
  'identity.option.snapshot': {
    request: z.object({}),
    response: z.object({ options: z.array(optionSnapshotRowSchema) }),
  },
  /** Answered by identity: whose session cookie or access token this is (null when invalid, expired, revoked or banned). */
  'identity.auth.resolve': {
    request: z.object({ kind: z.enum(['session', 'access_token']), secret: z.string().min(1).max(256) }),
    response: z.object({ principal: authPrincipalSchema.nullable() }),
  },
  /**
   * Answered by identity: when the console session (`session`: sha256 of its cookie, as the
   * gateway forwards it in the caller's identity) of `user_id` last proved a second factor with
   * POST /api/verify, if that is within the step-up window; null otherwise. Channels asks it
   * before revealing a channel key.
   */
  'identity.session.step-up': {
    request: z.object({ user_id: z.number().int(), session: z.string().regex(/^[0-9a-f]{64}$/) }),
    response: z.object({ verified_at: z.number().int().nullable() }),
  },
  /**
   * Answered by identity: how to reach users (the notifier's mails and notices): the listed users,
   * and every enabled super admin when `roots` is set. Users without an email are still listed
   * (email ''). `notification` is the user's own settings (`PUT /api/user/setting`) with their
   * secrets: only the notifier asks (bus permissions).
   */
  'identity.user.contacts': {
    request: z.object({ user_ids: z.array(z.number().int()).max(100).default([]), roots: z.boolean().default(false) }),
    response: z.object({
      contacts: z.array(
        z.object({
          user_id: z.number().int(),
          username: z.string(),
          display_name: z.string(),
          email: z.string(),
          role: z.number().int(),
          locale: localeSchema,
          notification: notificationSettingsSchema.default(defaultNotificationSettings),
        }),
      ),
    }),
  },
  /**
   * Answered by the notifier: how the first attempt of the mail a `notifier.mail.requested` event
   * (`cause`: its id) ordered went, waiting for it at most `wait_ms`. `failed`: the first attempt
   * failed (`error`: the mail server's answer; the delivery is still retried), or it was given up;
   * `pending`: no attempt finished within the wait. Identity asks it so that a user who asked for a
   * verification code learns at once that it cannot arrive.
   */
  'notifier.mail.outcome': {
    request: z.object({ cause: z.string().min(1).max(256), wait_ms: z.number().int().min(0).max(15_000) }),
    response: z.object({ status: z.enum(['sent', 'failed', 'pending']), error: z.string() }),
  },
  /**
   * Answered by billing: balances of up to 100 users, for identity's user rows. A user without an
   * account yet is left out (its balance is 0). Requesters that get no answer show the balances
   * as unknown, never as zeros.
   */
  'billing.account.balances': {
    request: z.object({ user_ids: z.array(z.number().int()).max(100) }),
    response: z.object({
      balances: z.record(
        z.string(),
        z.object({
          quota: z.number().int(),
          used_quota: z.number().int(),
          request_count: z.number().int(),
          aff_count: z.number().int(),
          aff_quota: z.number().int(),
          aff_history_quota: z.number().int(),
        }),
      ),
    }),
  },
  /** Answered by billing: the token behind an sk- key hash, for the relay's cache (null when unknown). */
  'billing.token.resolve': {
    request: z.object({ key_hash: z.string().regex(/^[0-9a-f]{64}$/) }),
    response: z.object({ token: resolvedTokenSchema.nullable() }),
  },
  /**
   * Answered by billing: what a token has left and has used, and its owner's balance and use, for
   * the OpenAI-style billing dashboards (`/dashboard/billing/*`) the relay serves to key holders.
   */
  'billing.token.figures': {
    request: z.object({ token_id: z.number().int().positive(), user_id: z.number().int().positive() }),
    response: z.object({
      token: z
        .object({ remain_quota: z.number().int(), used_quota: z.number().int(), unlimited_quota: z.boolean(), expired_time: z.number().int() })
        .nullable(),
      account: z.object({ quota: z.number().int(), used_quota: z.number().int() }).nullable(),
    }),
  },
  /** Answered by billing: seeds the live counters of a user (and a limited token) from the database. */
  'billing.quota.seed': {
    request: z.object({ user_id: z.number().int().positive(), token_id: z.number().int().min(0) }),
    response: z.object({ user: z.number().int().nullable(), token: z.number().int().nullable() }),
  },
  /**
   * Answered by billing: an admin's quota change from the user editor (identity forwards it), in
   * one transaction with its ledger entry and manage log. Either `quota`, the new balance (with
   * `expected_quota`: only if the balance is still that, else refused with "the balance changed
   * since you loaded it ..."; without: set unconditionally), never negative, or `delta`, added to
   * the balance as it is, refused when negative and taking the balance below 0. The ledger entry
   * carries `actor_id`. A change publishes billing's audit record (`user.quota_changed`) with the
   * admin (`actor_*`) and the client IP identity saw (`client_ip`). The answer is the balance after
   * the change.
   */
  'billing.account.set_quota': {
    request: z
      .object({
        user_id: z.number().int().positive(),
        quota: z.number().int().min(0, msg('quota.set_negative')).optional(),
        expected_quota: z.number().int().optional(),
        delta: z.number().int().optional(),
        actor_id: z.number().int(),
        actor_username: z.string(),
        /** The admin's role, for the audit record (0 from a requester that predates it). */
        actor_role: z.number().int().optional(),
        /** The admin's IP as the gateway saw it, for the audit record. */
        client_ip: z.string().max(64).optional(),
      })
      .refine((request) => (request.quota === undefined) !== (request.delta === undefined), { message: msg('quota.quota_or_delta') })
      .refine((request) => request.expected_quota === undefined || request.quota !== undefined, { message: msg('quota.expected_without_quota') }),
    response: z.object({ quota: z.number().int() }),
  },
  /**
   * Answered by channels (its own issue): every model an enabled channel offers, with the groups
   * it is offered in. Billing's pricing page lists these.
   */
  'channels.model.enabled': {
    request: z.object({}),
    response: z.object({ models: z.array(z.object({ model: z.string(), groups: z.array(z.string()) })) }),
  },
  /** Answered by channels: the decrypted key of an enabled channel, for the relay's memory only. */
  'channels.channel.key': {
    request: z.object({ channel_id: z.number().int() }),
    response: z.object({ key: z.string() }),
  },
  /** Answered by channels: every channel's routing row (the relay's start-up snapshot). */
  'channels.routing.snapshot': {
    request: z.object({}),
    response: z.object({ channels: z.array(routingChannelSchema) }),
  },
  /**
   * Answered by the relay: a channel operation with given credentials (channel tests, fetching
   * the upstream's model list, reading its balance). The relay owns provider protocols and egress.
   */
  'relay.channel.operate': {
    request: z.object({
      operation: channelOperationSchema,
      channel: routingChannelSchema,
      key: z.string(),
      model: z.string().max(MAX_MODEL_NAME_LENGTH).default(''),
    }),
    response: z.object({
      ok: z.boolean(),
      message: z.string(),
      status_code: z.number().int(),
      response_time_ms: z.number().int(),
      models: z.array(z.string()).default([]),
      balance: z.number().nullable().default(null),
    }),
  },
} as const;

export type RequestSubject = keyof typeof requestSchemas;
export type RequestPayload<S extends RequestSubject> = z.infer<(typeof requestSchemas)[S]['request']>;
export type ResponsePayload<S extends RequestSubject> = z.infer<(typeof requestSchemas)[S]['response']>;
