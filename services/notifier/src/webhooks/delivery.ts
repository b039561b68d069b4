import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { eventSchemas, WEBHOOK_PING_SUBJECT, webhookSubjects, type EventSubject, type WebhookTestResult } from '@aigw/contracts';
import { openSecret, type BusEvent, type EgressClient, type EgressResponse, type Job, type Subscription } from '@aigw/platform';
import { answerError, callError, finishDelivery, recordDelivery, settleAttempt, type AttemptOutcome, type DeliveryCause } from '../delivery-records.js';
import { DeliveryEntity, WebhookEndpointEntity } from '../entities/index.js';
import type { NotifierContext } from '../context.js';
import type { WebhookDirectory } from './directory.js';
import { signedHeaders, webhookBody, type WebhookMessage } from '../domain/webhook-signature.js';

/** Tunables of webhook delivery (config: WEBHOOK_*). */
export interface WebhookSettings {
  /** Whole time one call may take: connecting, the answer's headers and its body. */
  timeoutMs: number;
  /** Calls per delivery, the first included, before it is failed for good. */
  attempts: number;
  /** Wait before the first retry; it doubles on every further retry. */
  backoffMs: number;
  /** How often the endpoint cache is reloaded, for changes made on another replica. */
  refreshMs: number;
  /** Deliveries sent at once by one notifier process (a hanging endpoint holds one each). */
  concurrency: number;
}

export const defaultWebhookSettings: WebhookSettings = { timeoutMs: 10_000, attempts: 6, backoffMs: 30_000, refreshMs: 10_000, concurrency: 8 };

/** What the consumer, the job and the routes share. */
export interface WebhookRuntime {
  context: NotifierContext;
  settings: WebhookSettings;
  egress: EgressClient;
  directory: WebhookDirectory;
}

export const DELIVER_JOB = 'notifier.webhook.deliver';
/** The durable consumer name: notifier replicas share the events. */
const CONSUMER = 'notifier-webhooks';
/** What an error excerpt keeps of an endpoint's answer. */
const EXCERPT_BYTES = 300;

const deliverJobSchema = z.object({
  delivery_id: z.number().int().positive(),
  /** The attempt limit the job was added with (the row's count is what is compared with it). */
  attempts: z.number().int().positive(),
});
type DeliverJob = z.infer<typeof deliverJobSchema>;

/**
 * The bus side: one durable consumer per domain, taking only events some enabled endpoint's
 * filter matches at that moment (SubscribeOptions.wants). It only matches filters in memory and, for each
 * matching endpoint, records a delivery and queues its job, so a slow or dead endpoint never holds
 * the consumer up. A redelivered event finds its delivery row (unique per event and URL) and
 * re-queues the job only while it is still pending.
 */
export async function subscribeWebhookEvents(runtime: WebhookRuntime): Promise<Subscription[]> {
  const { context, directory } = runtime;
  const domains = [...new Set(webhookSubjects.map((subject) => subject.split('.')[0]!))];
  const handler = (event: BusEvent) => enqueueDeliveries(runtime, event);
  // An event no endpoint's filter matches now is acknowledged unhandled (most usage records, with no endpoint taking `relay.*`).
  const wants = (subject: string) => directory.matching(subject).length > 0;
  return Promise.all(domains.map((domain) => context.bus.subscribe(`${domain}.>`, handler, { durable: CONSUMER, wants })));
}

async function enqueueDeliveries(runtime: WebhookRuntime, event: BusEvent): Promise<void> {
  const { context, directory } = runtime;
  if (!(webhookSubjects as string[]).includes(event.subject)) return;
  const candidates = directory.matching(event.subject);
  if (candidates.length === 0) return;
  const parsed = eventSchemas[event.subject as EventSubject].safeParse(event.data);
  if (!parsed.success) {
    context.logger.error({ subject: event.subject, eventId: event.id, issues: parsed.error.issues }, 'webhooks: invalid event not delivered');
    return;
  }
  const endpoints = candidates.filter((endpoint) => !echoesItsOwnFailure(event.subject, parsed.data, endpoint.url));
  const body = webhookBody({ id: event.id, subject: event.subject, time: event.time, data: parsed.data });
  for (const endpoint of endpoints) {
    const cause: DeliveryCause = { kind: 'webhook', dedupe_key: event.id, target: endpoint.url };
    const delivery = await recordDelivery(context.db, cause, { topic: event.subject, webhook_id: endpoint.id, payload: body });
    if (delivery.status !== 'pending') continue;
    await queueDelivery(runtime, delivery.id);
  }
}

/** The job id is the delivery id: a delivery already queued is not queued twice. */
function queueDelivery(runtime: WebhookRuntime, deliveryId: number): Promise<void> {
  const { attempts, backoffMs } = runtime.settings;
  return runtime.context.jobs.add(DELIVER_JOB, { delivery_id: deliveryId, attempts } satisfies DeliverJob, { jobId: String(deliveryId), attempts, backoffMs });
}

/**
 * A failure notice about a webhook delivery is not sent to the endpoint that failed, nor when
 * the delivery that failed was itself such a notice: two dead endpoints would otherwise keep
 * reporting each other's failures forever.
 */
function echoesItsOwnFailure(subject: string, data: unknown, url: string): boolean {
  if (subject !== 'notifier.delivery.failed') return false;
  const failure = data as { kind: string; target: string; topic: string };
  return failure.kind === 'webhook' && (failure.target === url || failure.topic === 'notifier.delivery.failed');
}

/**
 * One signed POST through the egress guard (checked again now: DNS may have changed since the
 * URL was saved), redirects not followed, the whole call bounded by the timeout.
 */
export async function callEndpoint(runtime: WebhookRuntime, url: string, secret: string, message: WebhookMessage): Promise<AttemptOutcome> {
  const { timeoutMs } = runtime.settings;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await runtime.egress.request(url, { method: 'POST', headers: signedHeaders(message, secret), body: message.body, signal });
    if (response.statusCode >= 200 && response.statusCode < 300) {
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { ok: true, statusCode: response.statusCode, error: '', final: false };
    }
    const excerpt = await readExcerpt(response.body, signal);
    return { ok: false, statusCode: response.statusCode, error: answerError(response.statusCode, excerpt), final: false };
  } catch (error) {
    return callError(error, signal, timeoutMs);
  }
}

/** The start of an error answer, as one line of text (bounded: endpoints can answer anything). */
async function readExcerpt(body: EgressResponse['body'], signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= EXCERPT_BYTES || signal.aborted) break;
    }
  } catch {
    // the excerpt is a courtesy; the status already says what went wrong
  } finally {
    body.on('error', () => undefined);
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replace(/\s+/g, ' ').trim();
}

/**
 * The job: one attempt of one delivery. The row is the record of what happened (attempts, last
 * status and error); a delivery that is no longer pending is never sent again, so a duplicate job
 * or a redelivered event cannot send a `sent` delivery twice. A failure throws so the Jobs port
 * retries it after its backoff; the last failure marks the row `failed` and publishes
 * `notifier.delivery.failed` instead.
 */
export async function deliver(runtime: WebhookRuntime, job: Job): Promise<void> {
  const { context } = runtime;
  const data = deliverJobSchema.parse(job.data);
  const deliveries = context.db.getRepository(DeliveryEntity);
  const delivery = await deliveries.findOneBy({ id: data.delivery_id });
  if (!delivery || delivery.kind !== 'webhook' || delivery.status !== 'pending') return;
  const attempt = delivery.attempts + 1;
  const endpoint = await context.db.getRepository(WebhookEndpointEntity).findOneBy({ id: delivery.webhook_id });
  if (!endpoint || !endpoint.enabled) {
    // Root's decision, not the endpoint's failure: recorded, not announced.
    await finishDelivery(context.db, delivery.id, {
      status: 'failed',
      attempts: delivery.attempts,
      last_error: endpoint ? 'endpoint disabled before delivery' : 'endpoint deleted before delivery',
    });
    return;
  }
  const outcome = await callEndpoint(runtime, delivery.target, openSecret(endpoint.secret_encrypted, context.keySecret), {
    id: delivery.dedupe_key,
    subject: delivery.topic,
    body: delivery.payload,
  });
  await settleAttempt(context, delivery, attempt, outcome, attempt < data.attempts && job.attempt < data.attempts);
}

/** `POST /api/webhook/:id/test`: one signed ping, sent now, not recorded as a delivery. */
export async function sendPing(runtime: WebhookRuntime, endpoint: WebhookEndpointEntity): Promise<WebhookTestResult> {
  const id = randomUUID();
  const body = webhookBody({ id, subject: WEBHOOK_PING_SUBJECT, time: new Date().toISOString(), data: { webhook_id: endpoint.id } });
  const started = Date.now();
  const outcome = await callEndpoint(runtime, endpoint.url, openSecret(endpoint.secret_encrypted, runtime.context.keySecret), {
    id,
    subject: WEBHOOK_PING_SUBJECT,
    body,
  });
  return { ok: outcome.ok, status_code: outcome.statusCode, duration_ms: Date.now() - started, error: outcome.error };
}
