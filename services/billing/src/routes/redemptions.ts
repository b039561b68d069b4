import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createRedemptionBodySchema, idSchema, pageQuerySchema, redeemBodySchema, updateRedemptionBodySchema } from '@aigw/contracts';
import { requireAuth, UserError } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { formatQuota } from '../ledger.js';
import {
  createRedemptions, deleteRedemption, editRedemption, getRedemption, listRedemptions, redeem, setRedemptionStatus, toRedemptionView,
} from '../redemptions.js';

const idParams = z.object({ id: idSchema });
/** `?status_only=true` turns PUT into an enable/disable switch. */
const updateQuery = z.object({ status_only: z.string().optional().transform((value) => value === 'true') });

/** Redemption codes: admins manage them, users redeem them (`POST /api/user/topup`). */
export const redemptionRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const { db } = context;

  app.get('/api/redemption/', { schema: { querystring: pageQuerySchema }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: await listRedemptions(db, request.query) };
  });

  app.get('/api/redemption/search', {
    schema: { querystring: pageQuerySchema.extend({ keyword: z.string().trim().max(64).default('') }) },
    config: { access: 'admin' },
  }, async (request) => {
    return { success: true, message: '', data: await listRedemptions(db, request.query) };
  });

  app.get('/api/redemption/:id', { schema: { params: idParams }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: toRedemptionView(await getRedemption(db, request.params.id)) };
  });

  app.post('/api/redemption/', { schema: { body: createRedemptionBodySchema }, config: { access: 'admin' } }, async (request) => {
    // A blank name defaults to the quota as money, as the console's form does.
    const name = request.body.name || formatQuota(request.body.quota, context.options.get('QuotaPerUnit'));
    const keys = await createRedemptions(db, { creatorId: requireAuth(request).userId, ...request.body, name });
    return { success: true, message: '', data: keys };
  });

  app.put('/api/redemption/', { schema: { querystring: updateQuery, body: updateRedemptionBodySchema }, config: { access: 'admin' } }, async (request) => {
    const { id, name, quota, status } = request.body;
    let row;
    if (request.query.status_only) {
      if (status === undefined) throw new UserError('status: required with status_only');
      row = await setRedemptionStatus(db, id, status);
    } else {
      row = await editRedemption(db, { id, name, quota });
    }
    return { success: true, message: '', data: toRedemptionView(row) };
  });

  app.delete('/api/redemption/:id', { schema: { params: idParams }, config: { access: 'admin' } }, async (request) => {
    await deleteRedemption(db, request.params.id);
    return { success: true, message: '' };
  });

  app.post('/api/user/topup', { schema: { body: redeemBodySchema }, config: { access: 'user' } }, async (request) => {
    const { userId, username, group } = requireAuth(request);
    const quota = await redeem(context, { userId, username, group }, request.body.key);
    return { success: true, message: '', data: quota };
  });
};
