import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PricingAnswer } from '@aigw/contracts';
import type { BillingContext } from '../context.js';
import { createPricing } from '../pricing.js';

/** GET /api/pricing (public): the priced models and the groups the caller may use (pricing.ts). */
export const pricingRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const pricing = createPricing(context);

  app.get('/api/pricing', { config: { access: 'public' } }, async (request) => {
    const { rows, groupRatio, usableGroups } = await pricing.tableFor(request.auth ? request.auth.group : null);
    return { success: true, message: '', data: rows, group_ratio: groupRatio, usable_group: usableGroups } satisfies PricingAnswer;
  });
};
