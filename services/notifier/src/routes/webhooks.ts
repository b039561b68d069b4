import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createWebhookBodySchema, idSchema, rotateWebhookSecretBodySchema, updateWebhookBodySchema } from '@aigw/contracts';
import type { WebhookRuntime } from '../webhooks/delivery.js';
import { sendPing } from '../webhooks/delivery.js';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateSecret, toEndpointView, updateEndpoint } from '../webhooks/endpoints.js';

const idParams = z.object({ id: idSchema });

/**
 * Root's webhook endpoints. The signing secret appears in the create and rotate answers only;
 * every other answer is the whitelist view (rule R4). Each write reloads the endpoint cache.
 */
export const webhookRoutes: FastifyPluginAsyncZod<{ runtime: WebhookRuntime }> = async (app, { runtime }) => {
  const root = { access: 'root' } as const;
  const { context, egress, directory } = runtime;

  app.get('/api/webhook/', { config: root }, async () => {
    return { success: true, message: '', data: await listEndpoints(context) };
  });

  app.get('/api/webhook/:id', { schema: { params: idParams }, config: root }, async (request) => {
    return { success: true, message: '', data: toEndpointView(await getEndpoint(context, request.params.id)) };
  });

  app.post('/api/webhook/', { schema: { body: createWebhookBodySchema }, config: root }, async (request) => {
    const created = await createEndpoint(context, egress, request.body);
    await directory.refresh();
    return { success: true, message: '', data: created };
  });

  app.put('/api/webhook/', { schema: { body: updateWebhookBodySchema }, config: root }, async (request) => {
    const updated = await updateEndpoint(context, egress, request.body);
    await directory.refresh();
    return { success: true, message: '', data: updated };
  });

  app.delete('/api/webhook/:id', { schema: { params: idParams }, config: root }, async (request) => {
    await deleteEndpoint(context, request.params.id);
    await directory.refresh();
    return { success: true, message: '' };
  });

  app.post('/api/webhook/:id/rotate', { schema: { params: idParams, body: rotateWebhookSecretBodySchema }, config: root }, async (request) => {
    return { success: true, message: '', data: await rotateSecret(context, request.params.id, request.body.secret) };
  });

  app.post('/api/webhook/:id/test', { schema: { params: idParams }, config: root }, async (request) => {
    const result = await sendPing(runtime, await getEndpoint(context, request.params.id));
    return { success: true, message: result.ok ? '' : result.error, data: result };
  });
};
