import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { localizeMessage, type Locale } from '@aigw/contracts';
import type { Job } from '@aigw/platform';
import type { NotifierContext } from '../context.js';
import { recordDelivery, settleAttempt, type AttemptOutcome, type DeliveryCause } from '../delivery-records.js';
import { DeliveryEntity } from '../entities/index.js';
import { defaultSmtpTimeouts, type Mailer, type SmtpTimeouts } from './mailer.js';
import { renderMail, type MailParams, type MailTemplate } from './templates.js';

/** Tunables of mail delivery (config: MAIL_*). */
export interface MailSettings {
  /** Sends per mail, the first included, before it is failed for good. */
  attempts: number;
  /** Wait before the first retry; it doubles on every further retry. */
  backoffMs: number;
  /** Mails sent at once by one notifier process. */
  concurrency: number;
  timeouts: SmtpTimeouts;
}

/**
 * SMTP down: twelve sends with a doubling wait from 10 s ride out more than five hours of
 * outage before a mail is given up (and root is told).
 */
export const defaultMailSettings: MailSettings = { attempts: 12, backoffMs: 10_000, concurrency: 2, timeouts: defaultSmtpTimeouts };

/** What mail delivery shares: the context, its settings and the SMTP mailer. */
export interface MailRuntime {
  context: NotifierContext;
  settings: MailSettings;
  mailer: Mailer;
}

export const MAIL_JOB = 'notifier.mail';

/** The job carries only the delivery's id: the row holds the mail. */
const mailJobSchema = z.object({ delivery_id: z.number().int().positive() });

/** A mail as the delivery row stores it (rendered when queued). */
const storedMailSchema = z.object({ subject: z.string(), text: z.string(), html: z.string(), message_id: z.string() });
type StoredMail = z.infer<typeof storedMailSchema>;

/** What to send, to whom, and why: `cause` (an event id) makes a repeated order a no-op. */
export interface MailOrder<T extends MailTemplate> {
  cause: string;
  to: string;
  template: T;
  locale: Locale;
  params: MailParams<T>;
}

/** The longest recorded error text. */
const ERROR_MAX = 500;

/** The dedupe column holds 128 characters; a longer cause is kept as its digest. */
export function causeKey(cause: string): string {
  return cause.length <= 128 ? cause : `sha256:${createHash('sha256').update(cause).digest('hex')}`;
}

/**
 * Records the mail (one `deliveries` row per cause and recipient, written before anything is
 * queued) and queues its job with the row id as job id. A repeated order (a redelivered event)
 * finds its row: a mail already sent or given up is not queued again, a pending one is queued
 * again (a no-op while its job waits), which also covers a consumer that died between the two.
 */
export async function queueMail<T extends MailTemplate>(runtime: MailRuntime, order: MailOrder<T>): Promise<void> {
  const { context, settings } = runtime;
  const cause: DeliveryCause = { kind: 'mail', dedupe_key: causeKey(order.cause), target: order.to };
  // Rendered only for a first order.
  let delivery = await context.db.getRepository(DeliveryEntity).findOneBy(cause);
  if (!delivery) {
    const mail: StoredMail = { ...renderMail(order.template, order.locale, order.params), message_id: messageId(context) };
    delivery = await recordDelivery(context.db, cause, { topic: order.template, webhook_id: 0, payload: JSON.stringify(mail) });
  }
  if (delivery.status !== 'pending') return;
  await context.jobs.add(MAIL_JOB, { delivery_id: delivery.id } satisfies z.infer<typeof mailJobSchema>, {
    jobId: String(delivery.id),
    attempts: settings.attempts,
    backoffMs: settings.backoffMs,
  });
}

/** Unique per mail, in the domain of ServerAddress: receivers can drop a copy sent twice. */
function messageId(context: NotifierContext): string {
  let domain = 'localhost';
  try {
    domain = new URL(context.options.get('ServerAddress')).hostname || domain;
  } catch {
    // an empty or odd address: the default domain will do
  }
  return `<${randomUUID()}@${domain}>`;
}

/**
 * The job: one send of one mail. Only a `pending` row is sent, so a duplicate job, a job that ran
 * again after its worker died, or a redelivered event never sends a mail that is `sent`. A
 * failure is recorded on the row and thrown, so the Jobs port retries after its backoff; the last
 * one marks the row `failed` and publishes `notifier.delivery.failed` for root.
 */
export async function sendMail(runtime: MailRuntime, job: Job): Promise<void> {
  const { context, mailer } = runtime;
  const { delivery_id: id } = mailJobSchema.parse(job.data);
  const delivery = await context.db.getRepository(DeliveryEntity).findOneBy({ id });
  if (!delivery || delivery.kind !== 'mail' || delivery.status !== 'pending') return;
  const mail = storedMailSchema.parse(JSON.parse(delivery.payload));
  let outcome: AttemptOutcome = { ok: true, statusCode: 0, error: '', final: false };
  try {
    await mailer.send({ to: delivery.target, subject: mail.subject, text: mail.text, html: mail.html, messageId: mail.message_id });
  } catch (error) {
    outcome = { ok: false, statusCode: 0, error: describe(error), final: false };
  }
  await settleAttempt(context, delivery, delivery.attempts + 1, outcome, job.attempt < job.attempts);
}

/**
 * One line for the row and the event: the SMTP server's answer when there was one (never a
 * secret), in English as every record is (the egress guard's refusal is a `msg(id)` until worded).
 */
function describe(error: unknown): string {
  const text = localizeMessage(error instanceof Error ? error.message : String(error), 'en-US');
  return text.replace(/\s+/g, ' ').trim().slice(0, ERROR_MAX) || 'unknown error';
}
