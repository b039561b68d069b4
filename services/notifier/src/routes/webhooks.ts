import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createWebhookBodySchema, idSchema, localizeMessage, rotateWebhookSecretBodySchema, updateWebhookBodySchema } from '@aigw/contracts';
import { answerLocale, recordAudit, type AuditEntry } from '@aigw/platform';
import type { WebhookEndpointEntity } from '../entities/index.js';
import type { WebhookRuntime } from '../webhooks/delivery.js';
import { sendPing } from '../webhooks/delivery.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  parseSubjects,
  rotateSecret,
  toEndpointView,
  updateEndpoint,
} from '../webhooks/endpoints.js';

const idParams = z.object({ id: idSchema });

/**
 * An endpoint as its audit records show it. The secret is given sealed, which the record masks
 * (`***`): a new secret shows as changed, and neither it nor its sealed form is ever in a record.
 */
function webhookAudit(action: AuditEntry['action'], before: WebhookEndpointEntity | null, after: WebhookEndpointEntity | null): AuditEntry {
  const values = (row: WebhookEndpointEntity | null) =>
    row && { url: row.url, subjects: parseSubjects(row.subjects), description: row.description, enabled: row.enabled, secret: row.secret_encrypted };
  const row = (after ?? before)!;
  return { action, target: { type: 'webhook', id: String(row.id), label: row.url }, before: values(before), after: values(after) };
}

/**
 * Root's webhook endpoints. The signing secret appears in the create and rotate answers only;
 * every other answer is the whitelist view (rule R4). Each write reloads the endpoint cache and
 * leaves an audit record (the secret masked).
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
    await recordAudit(request, context.bus, 'notifier', webhookAudit('webhook.created', null, await getEndpoint(context, created.id)));
    return { success: true, message: '', data: created };
  });

  app.put('/api/webhook/', { schema: { body: updateWebhookBodySchema }, config: root }, async (request) => {
    const before = await getEndpoint(context, request.body.id);
    const updated = await updateEndpoint(context, egress, request.body);
    await directory.refresh();
    await recordAudit(request, context.bus, 'notifier', webhookAudit('webhook.updated', before, await getEndpoint(context, updated.id)));
    return { success: true, message: '', data: updated };
  });

  app.delete('/api/webhook/:id', { schema: { params: idParams }, config: root }, async (request) => {
    const before = await getEndpoint(context, request.params.id);
    await deleteEndpoint(context, request.params.id);
    await directory.refresh();
    await recordAudit(request, context.bus, 'notifier', webhookAudit('webhook.deleted', before, null));
    return { success: true, message: '' };
  });

  app.post('/api/webhook/:id/rotate', { schema: { params: idParams, body: rotateWebhookSecretBodySchema }, config: root }, async (request) => {
    const before = await getEndpoint(context, request.params.id);
    const rotated = await rotateSecret(context, request.params.id, request.body.secret);
    await recordAudit(request, context.bus, 'notifier', webhookAudit('webhook.updated', before, await getEndpoint(context, rotated.id)));
    return { success: true, message: '', data: rotated };
  });

  app.post('/api/webhook/:id/test', { schema: { params: idParams }, config: root }, async (request) => {
    const result = await sendPing(runtime, await getEndpoint(context, request.params.id));
    // The endpoint's answer as it came; the egress guard's refusal in the caller's language.
    const error = localizeMessage(result.error, answerLocale(request));
    return { success: true, message: error, data: { ...result, error } };
  });
};
