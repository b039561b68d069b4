import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DataSource } from 'typeorm';
import { drawingQuerySchema, taskQuerySchema } from '@aigw/contracts';
import { envelopeErrorHandler, requireAuth } from '@aigw/platform';
import type { RelayContext } from '../context.js';
import type { TaskEntity } from '../entities/index.js';
import { proxiedImagePath } from '../tasks/task-links.js';
import { list, TaskPlatform, toAsyncTask, toDrawingTask, toPage, type TaskFilter } from '../tasks/task-store.js';

/**
 * The drawing (`/api/mj/`: Midjourney) and async task (`/api/task/`: every other platform) lists
 * of the console, read from the relay's task store: admins see every user's (and may filter by
 * channel), users their own (`/self`, without the channel). Newest submit first.
 */
export const taskRoutes: FastifyPluginAsyncZod<{ db: DataSource; context: RelayContext }> = async (app, { db, context }) => {
  /** Drawings with their images through this server's proxy when MjForwardUrlEnabled, so the console never loads the upstream's address. */
  const drawingsOf = (rows: TaskEntity[], self: boolean) =>
    Promise.all(
      rows.map(async (row) => toDrawingTask(row, self, context.options.get('MjForwardUrlEnabled') ? await proxiedImagePath(context, row) : row.image_url)),
    );
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
      data: toPage(await drawingsOf(rows, false), total, query),
    };
  });
  app.get('/api/mj/self', { schema: { querystring: drawingQuerySchema }, config: { access: 'user' } }, async (request) => {
    const { query } = request;
    const filter: TaskFilter = { platform: drawings, userId: requireAuth(request).userId, taskId: query.mj_id, ...times(query) };
    const { rows, total } = await list(db, filter, query);
    return {
      success: true,
      message: '',
      data: toPage(await drawingsOf(rows, true), total, query),
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
