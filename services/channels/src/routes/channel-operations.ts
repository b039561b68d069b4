import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { fetchModelsBodySchema, msg, type ChannelBalance, type ChannelTestResult } from '@aigw/contracts';
import { auditSourceOf } from '@aigw/platform';
import type { ChannelsContext } from '../context.js';
import { BALANCE_ALL_JOB, fetchModels, fetchModelsUnsaved, startSweep, TEST_ALL_JOB, testChannel, updateBalance } from '../operations.js';
import { idParams, testQuery } from './schemas.js';

/**
 * Channel tests, balances and upstream model lists (admin). The test and balance answers carry
 * `time` and `balance` beside the envelope, where the established console reads them. Tests and
 * balance updates record what they find (and may disable a channel), so they are POST (rule R12;
 * the established product's GET is not kept: docs/security.md); listing upstream models stays GET.
 */
export const channelOperationRoutes: FastifyPluginAsyncZod<{ context: ChannelsContext }> = async (app, { context }) => {
  const admin = { access: 'admin' } as const;

  app.post('/api/channel/test/:id', { schema: { params: idParams, querystring: testQuery }, config: admin }, async (request) => {
    const result = await testChannel(context, request.params.id, request.query.model, request.query.key_index);
    return { ...result, data: { time: result.time } satisfies ChannelTestResult };
  });

  app.post('/api/channel/test', { config: admin }, async () => {
    await startSweep(context, TEST_ALL_JOB);
    return { success: true, message: msg('channels.test_all_started') };
  });

  app.post('/api/channel/update_balance/:id', { schema: { params: idParams }, config: admin }, async (request) => {
    const balance = await updateBalance(context, request.params.id);
    return { success: true, message: '', balance, data: { balance } satisfies ChannelBalance };
  });

  app.post('/api/channel/update_balance', { config: admin }, async () => {
    await startSweep(context, BALANCE_ALL_JOB);
    return { success: true, message: msg('channels.balance_all_started') };
  });

  app.get('/api/channel/fetch_models/:id', { schema: { params: idParams }, config: admin }, async (request) => {
    return { success: true, message: '', data: await fetchModels(context, request.params.id) };
  });

  app.post('/api/channel/fetch_models', { schema: { body: fetchModelsBodySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: await fetchModelsUnsaved(context, request.body, auditSourceOf(request)) };
  });
};
