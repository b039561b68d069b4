import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { In } from 'typeorm';
import { createRedemptionBodySchema, idSchema, pageQuerySchema, redeemBodySchema, updateRedemptionBodySchema, msg } from '@aigw/contracts';
import { recordAudit, requireAuth, UserError, type AuditEntry } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { RedemptionEntity } from '../entities/index.js';
import { formatQuota } from '../ledger.js';
import {
  createRedemptions,
  deleteRedemption,
  editRedemption,
  getRedemption,
  listRedemptions,
  redeem,
  setRedemptionStatus,
  toRedemptionView,
} from '../redemptions.js';

const idParams = z.object({ id: idSchema });
/** `?status_only=true` turns PUT into an enable/disable switch. */
const updateQuery = z.object({
  status_only: z
    .string()
    .optional()
    .transform((value) => value === 'true'),
});

/** A code as its audit records show it (the code itself masked: it is money to whoever holds it). */
function redemptionAudit(action: AuditEntry['action'], row: RedemptionEntity, before: RedemptionEntity | null, after: RedemptionEntity | null): AuditEntry {
  const values = (code: RedemptionEntity | null) => code && { name: code.name, quota: code.quota, status: code.status, key: code.key };
  return { action, target: { type: 'redemption', id: String(row.id), label: row.name }, before: values(before), after: values(after) };
}

/** Redemption codes: admins manage them (each change audited), users redeem them (`POST /api/user/topup`). */
export const redemptionRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const { db, bus } = context;

  app.get('/api/redemption/', { schema: { querystring: pageQuerySchema }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: await listRedemptions(db, request.query) };
  });

  app.get(
    '/api/redemption/search',
    {
      schema: { querystring: pageQuerySchema.extend({ keyword: z.string().trim().max(64).default('') }) },
      config: { access: 'admin' },
    },
    async (request) => {
      return { success: true, message: '', data: await listRedemptions(db, request.query) };
    },
  );

  app.get('/api/redemption/:id', { schema: { params: idParams }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: toRedemptionView(await getRedemption(db, request.params.id)) };
  });

  app.post('/api/redemption/', { schema: { body: createRedemptionBodySchema }, config: { access: 'admin' } }, async (request) => {
    // A blank name defaults to the quota as money, as the console's form does.
    const name = request.body.name || formatQuota(request.body.quota, context.options.get('QuotaPerUnit'));
    const keys = await createRedemptions(db, { creatorId: requireAuth(request).userId, ...request.body, name });
    const created = await db.getRepository(RedemptionEntity).find({ where: { key: In(keys) }, order: { id: 'ASC' } });
    await recordAudit(request, bus, 'billing', ...created.map((row) => redemptionAudit('redemption.created', row, null, row)));
    return { success: true, message: '', data: keys };
  });

  app.put('/api/redemption/', { schema: { querystring: updateQuery, body: updateRedemptionBodySchema }, config: { access: 'admin' } }, async (request) => {
    const { id, name, quota, status } = request.body;
    const before = await getRedemption(db, id);
    let row;
    if (request.query.status_only) {
      if (status === undefined) throw new UserError(`status: ${msg('redemption.status_required')}`);
      row = await setRedemptionStatus(db, id, status);
    } else {
      row = await editRedemption(db, { id, name, quota });
    }
    await recordAudit(request, bus, 'billing', redemptionAudit('redemption.updated', row, before, row));
    return { success: true, message: '', data: toRedemptionView(row) };
  });

  app.delete('/api/redemption/:id', { schema: { params: idParams }, config: { access: 'admin' } }, async (request) => {
    const before = await getRedemption(db, request.params.id);
    await deleteRedemption(db, request.params.id);
    await recordAudit(request, bus, 'billing', redemptionAudit('redemption.deleted', before, before, null));
    return { success: true, message: '' };
  });

  app.post('/api/user/topup', { schema: { body: redeemBodySchema }, config: { access: 'user' } }, async (request) => {
    const { userId, username, group } = requireAuth(request);
    const quota = await redeem(context, { userId, username, group }, request.body.key);
    return { success: true, message: '', data: quota };
  });
};
