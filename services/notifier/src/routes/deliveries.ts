import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { deliveriesQuerySchema, type DeliveryView, type Page } from '@aigw/contracts';
import type { NotifierContext } from '../context.js';
import { DeliveryEntity } from '../entities/index.js';

/** Root's view of outgoing mail and webhook deliveries, newest first: where failures show up. */
export const deliveryRoutes: FastifyPluginAsyncZod<{ context: NotifierContext }> = async (app, { context }) => {
  app.get('/api/webhook/deliveries', { schema: { querystring: deliveriesQuerySchema }, config: { access: 'root' } }, async (request) => {
    const { kind, status, p, page_size } = request.query;
    const [rows, total] = await context.db.getRepository(DeliveryEntity).findAndCount({
      where: { ...(kind ? { kind } : {}), ...(status ? { status } : {}) },
      order: { id: 'DESC' },
      skip: (p - 1) * page_size,
      take: page_size,
    });
    const data: Page<DeliveryView> = { items: rows.map(toDeliveryView), total, page: p, page_size };
    return { success: true, message: '', data };
  });
};

/** A whitelist: the payload stays out (mails carry codes and reset links). */
function toDeliveryView(row: DeliveryEntity): DeliveryView {
  return {
    id: row.id,
    kind: row.kind,
    target: row.target,
    topic: row.topic,
    webhook_id: row.webhook_id,
    status: row.status,
    attempts: row.attempts,
    response_status: row.response_status,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
