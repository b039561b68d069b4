import type { DataSource } from 'typeorm';
import type { NotifierContext } from './context.js';
import { DeliveryEntity } from './entities/index.js';
import { publishDeliveryFailed } from './events.js';

/**
 * The `deliveries` rows mail and webhooks share: written before a job is queued, finished only
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
