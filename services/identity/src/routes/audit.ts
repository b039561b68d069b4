import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { auditQuerySchema } from '@aigw/contracts';
import type { AuditStore } from '../audit-trail.js';

/** GET /api/audit/: the audit trail of every service's admin actions, root only, paged like the logs. */
export const auditRoutes: FastifyPluginAsyncZod<{ store: AuditStore }> = async (app, { store }) => {
  app.get('/api/audit/', { schema: { querystring: auditQuerySchema }, config: { access: 'root' } }, async (request) => {
    return { success: true, message: '', data: await store.list(request.query) };
  });
};
