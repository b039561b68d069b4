import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { completeTopUpBodySchema, topUpAmountBodySchema, topUpOrderQuerySchema, topUpPayBodySchema, type TopUpPayAnswer } from '@aigw/contracts';
import { recordAudit, requireAuth } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { completeOrderByHand, createOrder, listOrders, quoteTopUp, toTopUpOrderView } from '../topups.js';

/**
 * Online top-up orders (docs/compatibility.md section 6): the price of an amount, the signed
 * gateway form, and for admins the order list and the manual completion of a paid order whose
 * notify never came (complaint 12, docs/compatibility.md section 7). The gateway's notify is in
 * routes/epay.ts. `POST /api/user/topup` (a redemption code) is in routes/redemptions.ts.
 */
export const topupRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  app.post('/api/user/amount', { schema: { body: topUpAmountBodySchema }, config: { access: 'user' } }, async (request) => {
    const quote = await quoteTopUp(context, requireAuth(request), request.body.amount);
    return { success: true, message: 'success', data: quote.money };
  });

  app.post('/api/user/pay', { schema: { body: topUpPayBodySchema }, config: { access: 'user' } }, async (request) => {
    const form = await createOrder(context, requireAuth(request), request.body.amount, request.body.payment_method);
    // The console posts `data` as a hidden form to `url`.
    return { success: true, message: 'success', data: form.params, url: form.url } satisfies TopUpPayAnswer;
  });

  app.get('/api/user/topup', { schema: { querystring: topUpOrderQuerySchema }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: await listOrders(context.db, request.query) };
  });

  app.post('/api/user/topup/complete', { schema: { body: completeTopUpBodySchema }, config: { access: 'admin' } }, async (request) => {
    const order = await completeOrderByHand(context, requireAuth(request), request.body.trade_no);
    // A balance credited by an admin's word: audited (the gateway's own notifies are not admin actions).
    await recordAudit(request, context.bus, 'billing', {
      action: 'topup.completed',
      target: { type: 'topup', id: order.trade_no, label: order.trade_no },
      before: { status: 'pending' },
      after: { status: order.status, user_id: order.user_id, quota: order.amount, money: order.money },
    });
    return { success: true, message: '', data: toTopUpOrderView(order) };
  });
};
