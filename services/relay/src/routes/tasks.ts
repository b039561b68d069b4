import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DataSource } from 'typeorm';
import { drawingQuerySchema, taskQuerySchema } from '@aigw/contracts';
import { envelopeErrorHandler, requireAuth, type OptionsMirror } from '@aigw/platform';
import { list, TaskPlatform, toAsyncTask, toDrawingTask, toPage, type TaskFilter } from '../tasks/task-store.js';

/**
 * The drawing (`/api/mj/`: Midjourney) and async task (`/api/task/`: every other platform) lists
 * of the console, read from the relay's task store: admins see every user's (and may filter by
 * channel), users their own (`/self`, without the channel). Newest submit first.
 */
export const taskRoutes: FastifyPluginAsyncZod<{ db: DataSource; options: OptionsMirror }> = async (app, { db, options }) => {
  // Console routes answer the envelope, not the relay's OpenAI error shape (this plugin is encapsulated).
  app.setErrorHandler(envelopeErrorHandler);
  const drawings = { only: TaskPlatform.Midjourney };
  const others = { except: TaskPlatform.Midjourney };
  const times = (query: { start_timestamp?: number; end_timestamp?: number }) => ({
    startTimestamp: query.start_timestamp,
    endTimestamp: query.end_timestamp,
  });

  app.get('/api/mj/', { schema: { querystring: drawingQuerySchema }, config: { access: 'admin' } }, async (request) => {
    const { query } = request;
    const filter: TaskFilter = { platform: drawings, channelId: query.channel_id, taskId: query.mj_id, ...times(query) };
    const { rows, total } = await list(db, filter, query);
    return {
      success: true,
      message: '',
      data: toPage(
        rows.map((row) => toDrawingTask(row, false, options.get('MjForwardUrlEnabled'))),
        total,
        query,
      ),
    };
  });
  app.get('/api/mj/self', { schema: { querystring: drawingQuerySchema }, config: { access: 'user' } }, async (request) => {
    const { query } = request;
    const filter: TaskFilter = { platform: drawings, userId: requireAuth(request).userId, taskId: query.mj_id, ...times(query) };
    const { rows, total } = await list(db, filter, query);
    return {
      success: true,
      message: '',
      data: toPage(
        rows.map((row) => toDrawingTask(row, true, options.get('MjForwardUrlEnabled'))),
        total,
        query,
      ),
    };
  });
  app.get('/api/task/', { schema: { querystring: taskQuerySchema }, config: { access: 'admin' } }, async (request) => {
    const { query } = request;
    const filter: TaskFilter = { platform: others, channelId: query.channel_id, taskId: query.task_id, ...times(query) };
    const { rows, total } = await list(db, filter, query);
    return {
      success: true,
      message: '',
      data: toPage(
        rows.map((row) => toAsyncTask(row)),
        total,
        query,
      ),
    };
  });
  app.get('/api/task/self', { schema: { querystring: taskQuerySchema }, config: { access: 'user' } }, async (request) => {
    const { query } = request;
    const filter: TaskFilter = { platform: others, userId: requireAuth(request).userId, taskId: query.task_id, ...times(query) };
    const { rows, total } = await list(db, filter, query);
    return {
      success: true,
      message: '',
      data: toPage(
        rows.map((row) => toAsyncTask(row, true)),
        total,
        query,
      ),
    };
  });
};
