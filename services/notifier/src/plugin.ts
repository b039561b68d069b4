import type { FastifyPluginAsync } from 'fastify';
import {
  createOptionsMirror,
  deadLetterRoutes,
  deriveKey,
  keepDeadLetters,
  openDatabase,
  registerDiagnostics,
  useAccessControl,
  type Infrastructure,
  type Subscription,
} from '@aigw/platform';
import type { NotifierContext } from './context.js';
import { notifierEntities } from './entities/index.js';
import { notifierMigrations } from './migrations/index.js';
import { defaultWebhookSettings, registerWebhooks, type WebhookSettings } from './webhooks/index.js';
import { registerMail, type MailSettings } from './mail/index.js';
import { jobRoutes } from './routes/jobs.js';

/** For main.ts and the gateway's all-in-one composition, which read the same env. */
export { notifierConfigShape, notifierSettings } from './config.js';

export interface NotifierPluginOptions {
  infra: Infrastructure;
  /** PostgreSQL URL; SQLite under dataDir when absent. */
  databaseUrl?: string;
  dataDir: string;
  /** Database schema (PostgreSQL); tests pass their own. */
  schema?: string;
  /** Secret from which the key encrypting webhook signing secrets is derived. */
  keySecret: string;
  /** Webhook delivery tunables (timeout, attempts, backoff); defaults in webhooks/delivery.ts. */
  webhooks?: Partial<WebhookSettings>;
  /** Mail delivery tunables (attempts, backoff, SMTP timeouts); defaults in mail/deliveries.ts. */
  mail?: Partial<MailSettings>;
}

/** Notifier: email (SMTP), users' notices (low balance, channel alerts) by their chosen method, and signed webhooks to integrators. */
const notifierPlugin: FastifyPluginAsync<NotifierPluginOptions> = async (app, options) => {
  useAccessControl(app, 'notifier');
  const { jobs, kv, logger } = options.infra;
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: options.dataDir,
    schema: options.schema ?? 'notifier',
    entities: notifierEntities,
    migrations: notifierMigrations,
    logger,
  });
  // Every subscription goes through this bus, so what the notifier's consumers give up stays in its database.
  const deadLetters = keepDeadLetters(options.infra.bus, 'notifier', { db, logger });
  const { bus } = deadLetters;
  const mirror = await createOptionsMirror({ bus, logger });
  const context: NotifierContext = { db, bus, jobs, kv, logger, options: mirror, keySecret: deriveKey(options.keySecret, 'notifier.key') };

  const subscriptions: Subscription[] = [];
  subscriptions.push(...(await registerWebhooks(app, context, options.webhooks)));
  // Users' notices call URLs as webhooks do, with the same tunables.
  const { timeoutMs, attempts, backoffMs, concurrency } = { ...defaultWebhookSettings, ...options.webhooks };
  subscriptions.push(...(await registerMail(app, context, options.mail, { timeoutMs, attempts, backoffMs, concurrency })));

  app.addHook('onClose', async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    await mirror.close();
    await db.destroy();
  });

  registerDiagnostics(app, 'notifier', mirror);
  await app.register(jobRoutes, { context });
  await app.register(deadLetterRoutes, { deadLetters });
  void context;
};

export default notifierPlugin;
