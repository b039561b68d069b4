import type { DataSource } from 'typeorm';
import { localizeMessage } from '@aigw/contracts';
import { EgressBlockedError, EgressError } from '@aigw/platform';
import type { NotifierContext } from './context.js';
import { DeliveryEntity } from './entities/index.js';
import { publishDeliveryFailed } from './events.js';

/**
 * The `deliveries` rows mail, webhooks and notices share: written before a job is queued, finished only
 * while still `pending` (so a duplicate job or a redelivered event never sends twice), and a
 * delivery given up after its retries is announced once as `notifier.delivery.failed`.
 */

/** What makes a delivery one: its kind, its cause (an event id) and its recipient. */
export type DeliveryCause = Pick<DeliveryEntity, 'kind' | 'dedupe_key' | 'target'>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The pending row of `cause`, written now unless an earlier order already did. */
export async function recordDelivery(
  db: DataSource,
  cause: DeliveryCause,
  content: Pick<DeliveryEntity, 'topic' | 'webhook_id' | 'payload'>,
): Promise<DeliveryEntity> {
  const repository = db.getRepository(DeliveryEntity);
  const now = nowSeconds();
  await repository
    .createQueryBuilder()
    .insert()
    .into(DeliveryEntity)
    .orIgnore()
    .values({
      ...cause,
      ...content,
      status: 'pending',
      attempts: 0,
      last_error: '',
      response_status: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return repository.findOneByOrFail(cause);
}

/** Updates a still-pending row; false when another run already finished it. */
export async function finishDelivery(db: DataSource, id: number, changes: Partial<DeliveryEntity>): Promise<boolean> {
  const result = await db.getRepository(DeliveryEntity).update({ id, status: 'pending' }, { ...changes, updated_at: nowSeconds() });
  return (result.affected ?? 1) > 0;
}

/** Gives a delivery up after its last attempt; the run that does so tells root (and integrators) once. */
export async function failDelivery(
  context: NotifierContext,
  delivery: DeliveryEntity,
  outcome: { attempts: number; last_error: string; response_status?: number },
): Promise<void> {
  if (!(await finishDelivery(context.db, delivery.id, { ...outcome, status: 'failed' }))) return;
  const { id, kind, target, topic } = delivery;
  context.logger.warn({ deliveryId: id, kind, topic, attempts: outcome.attempts, error: outcome.last_error }, 'delivery failed for good');
  await publishDeliveryFailed(context.bus, {
    kind,
    delivery_id: id,
    target,
    topic,
    attempts: Math.max(1, outcome.attempts),
    error: outcome.last_error,
  });
}

/** What one attempt of a delivery came to. */
export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's HTTP status; 0 when there was no answer (and for mail). */
  statusCode: number;
  /** What went wrong, as recorded (a `msg(id)` of the egress guard is worded in English here). */
  error: string;
  /** Retrying cannot help (the egress guard refused, the method is not configured). */
  final: boolean;
}

/**
 * Records one attempt on its still-pending row: sent; or failed with a retry left (`retry`), which
 * throws so the Jobs port retries after its backoff; or failed for good (`failDelivery`). Mail,
 * webhooks and notices settle every attempt here, so a row tells the same story whatever its kind.
 */
export async function settleAttempt(
  context: NotifierContext,
  delivery: DeliveryEntity,
  attempt: number,
  outcome: AttemptOutcome,
  retry: boolean,
): Promise<void> {
  const recorded = { attempts: attempt, response_status: outcome.statusCode };
  if (outcome.ok) {
    await finishDelivery(context.db, delivery.id, { ...recorded, status: 'sent', last_error: '' });
    return;
  }
  // The row keeps its error in English, as every record does.
  const lastError = localizeMessage(outcome.error, 'en-US');
  if (!outcome.final && retry) {
    await finishDelivery(context.db, delivery.id, { ...recorded, last_error: lastError });
    throw new Error(`${delivery.kind} delivery ${delivery.id} attempt ${attempt} failed: ${lastError}`);
  }
  await failDelivery(context, delivery, { ...recorded, last_error: lastError });
}

/** A receiver's answer other than 2xx, as recorded: its status, and the start of what it said. */
export function answerError(statusCode: number, excerpt: string): string {
  // not a console message: the delivery's recorded error, with the receiver's own answer.
  const redirect = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
  return `HTTP ${statusCode}${redirect}${excerpt ? `: ${excerpt}` : ''}`;
}

/** A call that got no answer: refused by the egress guard (final), timed out, or lost on the network. */
export function callError(error: unknown, signal: AbortSignal, timeoutMs: number): AttemptOutcome {
  if (error instanceof EgressBlockedError) return { ok: false, statusCode: 0, error: error.message, final: true };
  // The pool's own header/body timers equal the signal's, so either may fire first: both mean the same.
  const timedOut = signal.aborted || (error instanceof EgressError && error.kind.endsWith('timeout'));
  // not a console message: the delivery's recorded error.
  if (timedOut) return { ok: false, statusCode: 0, error: `no complete answer within ${timeoutMs} ms`, final: false };
  const described = error instanceof EgressError ? error.message.replace(/^upstream /, '') : 'network error';
  return { ok: false, statusCode: 0, error: described, final: false };
}
