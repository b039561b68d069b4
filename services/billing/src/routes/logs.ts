import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { logQuerySchema, pageQuerySchema } from '@aigw/contracts';
import { requireAuth } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { deleteLogsBefore, listLogs, logStat, selfFilter, toLogView, toPage, toSelfLogView, type LogFilter } from '../logs.js';

const listQuery = logQuerySchema.extend(pageQuerySchema.shape);
const deleteQuery = z.object({ target_timestamp: z.coerce.number().int().min(1).max(253_402_300_799) });

/** Usage and account logs: admins see everything, users their own rows without admin-only details. */
export const logRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const { db } = context;

  /** A page of rows, each in the reader's view and language. */
  const logPage = async (query: z.infer<typeof listQuery>, filter: LogFilter, view: typeof toLogView, acceptLanguage: string | undefined) => {
    const { rows, total } = await listLogs(db, filter, query);
    return {
      success: true,
      message: '',
      data: toPage(
        rows.map((row) => view(row, acceptLanguage)),
        total,
        query,
      ),
    };
  };

  app.get('/api/log/', { schema: { querystring: listQuery }, config: { access: 'admin' } }, async (request) =>
    logPage(request.query, request.query, toLogView, request.headers['accept-language']),
  );

  app.get('/api/log/self', { schema: { querystring: listQuery }, config: { access: 'user' } }, async (request) =>
    logPage(request.query, selfFilter(request.query, requireAuth(request).userId), toSelfLogView, request.headers['accept-language']),
  );

  app.get('/api/log/stat', { schema: { querystring: logQuerySchema }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: await logStat(db, request.query) };
  });

  app.get('/api/log/self/stat', { schema: { querystring: logQuerySchema }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await logStat(db, selfFilter(request.query, requireAuth(request).userId)) };
  });

  app.delete('/api/log/', { schema: { querystring: deleteQuery }, config: { access: 'admin' } }, async (request) => {
    const deleted = await deleteLogsBefore(db, request.query.target_timestamp);
    return { success: true, message: '', data: deleted };
  });
};
