import type { FastifyInstance } from 'fastify';
import type { Subscription } from '@aigw/platform';
import type { NotifierContext } from '../context.js';
import { outboundEgress } from '../outbound.js';
import { webhookRoutes } from '../routes/webhooks.js';
import { deliveryRoutes } from '../routes/deliveries.js';
import { createWebhookDirectory } from './directory.js';
import { DELIVER_JOB, defaultWebhookSettings, deliver, subscribeWebhookEvents, type WebhookRuntime, type WebhookSettings } from './delivery.js';

export { defaultWebhookSettings, type WebhookSettings } from './delivery.js';

/**
 * Webhooks to integrators, all of it: root's routes (`/api/webhook/*`, deliveries included), the
 * endpoint cache, the durable bus consumers that queue deliveries, and the job that sends them.
 * Returns the subscriptions for the plugin to end on close.
 */
export async function registerWebhooks(app: FastifyInstance, context: NotifierContext, overrides: Partial<WebhookSettings> = {}): Promise<Subscription[]> {
  const settings: WebhookSettings = { ...defaultWebhookSettings, ...overrides };
  const runtime: WebhookRuntime = {
    context,
    settings,
    // Webhooks get their own pool with their own timeouts; the address rule is the relay's (the root option).
    egress: outboundEgress(context, settings.timeoutMs),
    directory: await createWebhookDirectory({ db: context.db, logger: context.logger, refreshMs: settings.refreshMs }),
  };
  app.addHook('onClose', async () => {
    runtime.directory.close();
    await runtime.egress.close();
  });

  await context.jobs.work(DELIVER_JOB, (job) => deliver(runtime, job), { concurrency: settings.concurrency });
  const subscriptions = await subscribeWebhookEvents(runtime);
  await app.register(webhookRoutes, { runtime });
  await app.register(deliveryRoutes, { context });
  return subscriptions;
}
