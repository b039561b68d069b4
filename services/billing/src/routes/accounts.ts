import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { affTransferBodySchema } from '@aigw/contracts';
import { requireAuth } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { transferInviteEarnings } from '../accounts.js';

/** Moving invite earnings (aff_quota) into the spendable balance. */
export const accountRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  app.post('/api/user/aff_transfer', { schema: { body: affTransferBodySchema }, config: { access: 'user' } }, async (request) => {
    const message = await transferInviteEarnings(context, requireAuth(request).userId, request.body.quota);
    return { success: true, message };
  });
};
