import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { In } from 'typeorm';
import {
  ChannelStatus,
  channelListQuerySchema,
  channelSearchQuerySchema,
  createChannelBodySchema,
  type CopiedChannel,
  type CreatedChannels,
} from '@aigw/contracts';
import { auditSourceOf } from '@aigw/platform';
import type { ChannelsContext } from '../context.js';
import { rebuildAllAbilities } from '../abilities.js';
import { copyChannel, createChannels, deleteChannel, deleteChannels, getChannel, updateChannel } from '../channels.js';
import { listChannels } from '../listing.js';
import { toChannelView } from '../domain/channel-fields.js';
import { batchDeleteBody, copyQuery, copySuffix, idParams, updateBodySchema } from './schemas.js';

/** Channel management (admin): the table, the editor, copy, deletes and the abilities repair; every change audited. */
export const channelRoutes: FastifyPluginAsyncZod<{ context: ChannelsContext }> = async (app, { context }) => {
  const admin = { access: 'admin' } as const;

  app.get('/api/channel/', { schema: { querystring: channelListQuerySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: await listChannels(context, request.query) };
  });

  app.get('/api/channel/search', { schema: { querystring: channelSearchQuerySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: await listChannels(context, request.query) };
  });

  app.get('/api/channel/:id', { schema: { params: idParams }, config: admin }, async (request) => {
    return { success: true, message: '', data: toChannelView(await getChannel(context, request.params.id)) };
  });

  app.post('/api/channel/', { schema: { body: createChannelBodySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: { ids: await createChannels(context, request.body, auditSourceOf(request)) } satisfies CreatedChannels };
  });

  app.put('/api/channel/', { schema: { body: updateBodySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: toChannelView(await updateChannel(context, request.body, auditSourceOf(request))) };
  });

  app.delete('/api/channel/:id', { schema: { params: idParams }, config: admin }, async (request) => {
    await deleteChannel(context, request.params.id, auditSourceOf(request));
    return { success: true, message: '' };
  });

  app.post('/api/channel/copy/:id', { schema: { params: idParams, querystring: copyQuery }, config: admin }, async (request) => {
    const id = await copyChannel(
      context,
      request.params.id,
      { suffix: request.query.suffix ?? copySuffix(request.headers['accept-language']), resetBalance: request.query.reset_balance },
      auditSourceOf(request),
    );
    return { success: true, message: '', data: { id } satisfies CopiedChannel };
  });

  app.post('/api/channel/batch', { schema: { body: batchDeleteBody }, config: admin }, async (request) => {
    return { success: true, message: '', data: (await deleteChannels(context, { id: In(request.body.ids) }, auditSourceOf(request))).length };
  });

  app.delete('/api/channel/disabled', { config: admin }, async (request) => {
    const ids = await deleteChannels(context, { status: In([ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled]) }, auditSourceOf(request));
    return { success: true, message: '', data: ids.length };
  });

  app.post('/api/channel/fix', { config: admin }, async () => {
    return { success: true, message: '', data: await rebuildAllAbilities(context.db) };
  });
};
