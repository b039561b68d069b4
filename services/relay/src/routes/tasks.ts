import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { drawingQuerySchema, taskQuerySchema, type AsyncTask, type DrawingTask, type Page } from '@aigw/contracts';
import { envelopeErrorHandler } from '@aigw/platform';

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
  const noTasks = <Task extends DrawingTask | AsyncTask>(query: { p: number; page_size: number }): { success: true; message: string; data: Page<Task> } => ({
    success: true,
    message: '',
    data: { items: [], total: 0, page: query.p, page_size: query.page_size },
  });
  app.get('/api/mj/', { schema: { querystring: drawingQuerySchema }, config: { access: 'admin' } }, async (request) => noTasks<DrawingTask>(request.query));
  app.get('/api/mj/self', { schema: { querystring: drawingQuerySchema }, config: { access: 'user' } }, async (request) => noTasks<DrawingTask>(request.query));
  app.get('/api/task/', { schema: { querystring: taskQuerySchema }, config: { access: 'admin' } }, async (request) => noTasks<AsyncTask>(request.query));
  app.get('/api/task/self', { schema: { querystring: taskQuerySchema }, config: { access: 'user' } }, async (request) => noTasks<AsyncTask>(request.query));
};
