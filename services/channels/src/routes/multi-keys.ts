import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { multiKeyManageBodySchema } from '@aigw/contracts';
import { auditSourceOf } from '@aigw/platform';
import type { ChannelsContext } from '../context.js';
import { manageKeys } from '../multi-keys.js';

/**
 * POST /api/channel/multi_key/manage (admin; the established product's route): the masked key
 * list of a channel with many keys, and its keys enabled, disabled or removed; every change is
 * audited as a channel update (the key states, never the keys).
 */
export const multiKeyRoutes: FastifyPluginAsyncZod<{ context: ChannelsContext }> = async (app, { context }) => {
  app.post('/api/channel/multi_key/manage', { schema: { body: multiKeyManageBodySchema }, config: { access: 'admin' } }, async (request) => {
    return { success: true, message: '', data: await manageKeys(context, request.body, auditSourceOf(request)) };
  });
};
