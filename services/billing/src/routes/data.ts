import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { dataQuerySchema } from '@aigw/contracts';
import { requireAuth } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { SELF_RANGE_MAX_SECONDS, usageRange, usageRows } from '../usage-data.js';

/** The data dashboard: hourly usage per model, for everyone (admin) or for the caller. */
export const dataRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const { db } = context;

  app.get('/api/data/', { schema: { querystring: dataQuerySchema }, config: { access: 'admin' } }, async (request) => {
    const range = usageRange(request.query);
    return { success: true, message: '', data: await usageRows(db, range, { username: request.query.username }) };
  });

  // username is ignored: a user sees only their own rows, by id.
  app.get('/api/data/self', { schema: { querystring: dataQuerySchema }, config: { access: 'user' } }, async (request) => {
    const range = usageRange(request.query, SELF_RANGE_MAX_SECONDS);
    return { success: true, message: '', data: await usageRows(db, range, { userId: requireAuth(request).userId }) };
  });
};
