import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pageQuerySchema, type Page } from '@aigw/contracts';
import { envelopeErrorHandler } from '@aigw/platform';

const timeRange = {
  start_timestamp: z.coerce.number().int().min(0).optional(),
  end_timestamp: z.coerce.number().int().min(0).optional(),
};
const drawingQuery = pageQuerySchema.extend({ channel_id: z.coerce.number().int().min(0).optional(), mj_id: z.string().max(128).optional(), ...timeRange });
const taskQuery = pageQuerySchema.extend({ channel_id: z.coerce.number().int().min(0).optional(), task_id: z.string().max(128).optional(), ...timeRange });

/**
 * The drawing (`/api/mj/`) and async task (`/api/task/`) lists of the console: admins see every
 * user's, users their own (`/self`). The relay owns async tasks (docs/architecture.md section 3.4),
 * but it does not relay drawing or music tasks yet, so no task exists to list: the answers are
 * empty pages of the final shape, which the console shows as such. The task relay replaces the
 * empty source.
 */
export const taskRoutes: FastifyPluginAsyncZod = async (app) => {
  // Console routes answer the envelope, not the relay's OpenAI error shape (this plugin is encapsulated).
  app.setErrorHandler(envelopeErrorHandler);
  const noTasks = (query: { p: number; page_size: number }): { success: true; message: string; data: Page<never> } => ({
    success: true, message: '', data: { items: [], total: 0, page: query.p, page_size: query.page_size },
  });
  app.get('/api/mj/', { schema: { querystring: drawingQuery }, config: { access: 'admin' } }, async (request) => noTasks(request.query));
  app.get('/api/mj/self', { schema: { querystring: drawingQuery }, config: { access: 'user' } }, async (request) => noTasks(request.query));
  app.get('/api/task/', { schema: { querystring: taskQuery }, config: { access: 'admin' } }, async (request) => noTasks(request.query));
  app.get('/api/task/self', { schema: { querystring: taskQuery }, config: { access: 'user' } }, async (request) => noTasks(request.query));
};
