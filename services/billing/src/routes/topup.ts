import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { UserError } from '@aigw/platform';
import type { BillingContext } from '../context.js';

/** Amount in whole top-up units (dollars of quota), and the optional code and method of the form. */
const topupBodySchema = z.object({
  amount: z.number().int('amount must be an integer').min(1, 'amount must be at least 1').max(1_000_000, 'amount is too large'),
  top_up_code: z.string().trim().max(64).optional(),
  payment_method: z.string().trim().max(32).optional(),
});

/**
 * Online top-up (`POST /api/user/amount` price preview, `POST /api/user/pay` order). The payment
 * gateway integration (signed orders, verified notify callbacks, R10) is its own piece of work;
 * until it exists this server takes no online payments, so both calls answer the established
 * product's "online top-up is not enabled" refusal after validating the request, and the wallet
 * shows it. Redemption codes (`POST /api/user/topup`) are the way to add quota meanwhile.
 */
export const topupRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app) => {
  const refuse = async () => {
    throw new UserError('the administrator has not enabled online top-up');
  };
  app.post('/api/user/amount', { schema: { body: topupBodySchema }, config: { access: 'user' } }, refuse);
  app.post('/api/user/pay', { schema: { body: topupBodySchema }, config: { access: 'user' } }, refuse);
};
