import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ChannelStatus, tagEditBodySchema } from '@aigw/contracts';
import { auditSourceOf } from '@aigw/platform';
import type { ChannelsContext } from '../context.js';
import { editTag, setStatusByTag, setTag } from '../channels.js';
import { batchTagBody, tagBody } from './schemas.js';

/** Tags (admin): enable or disable all channels of a tag, edit a tag, tag a selection; each channel's change audited. */
export const channelTagRoutes: FastifyPluginAsyncZod<{ context: ChannelsContext }> = async (app, { context }) => {
  const admin = { access: 'admin' } as const;

  app.post('/api/channel/tag/enabled', { schema: { body: tagBody }, config: admin }, async (request) => {
    return { success: true, message: '', data: await setStatusByTag(context, request.body.tag, ChannelStatus.Enabled, auditSourceOf(request)) };
  });

  app.post('/api/channel/tag/disabled', { schema: { body: tagBody }, config: admin }, async (request) => {
    return { success: true, message: '', data: await setStatusByTag(context, request.body.tag, ChannelStatus.ManuallyDisabled, auditSourceOf(request)) };
  });

  app.put('/api/channel/tag', { schema: { body: tagEditBodySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: await editTag(context, request.body, auditSourceOf(request)) };
  });

  app.post('/api/channel/batch/tag', { schema: { body: batchTagBody }, config: admin }, async (request) => {
    return { success: true, message: '', data: await setTag(context, request.body.ids, request.body.tag, auditSourceOf(request)) };
  });
};
