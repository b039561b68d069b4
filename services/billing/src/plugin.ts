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
import type { BillingContext } from './context.js';
import { billingEntities } from './entities/index.js';
import { billingMigrations } from './migrations/index.js';
import { registerAccountResponders, subscribeAccountEvents } from './accounts.js';
import { accountRoutes } from './routes/accounts.js';
import { redemptionRoutes } from './routes/redemptions.js';
import { logRoutes } from './routes/logs.js';
import { dataRoutes } from './routes/data.js';
import { registerLogRetention } from './logs.js';
import { tokenRoutes } from './routes/tokens.js';
import { registerTokenResponders } from './token-responders.js';
import { registerQuotaResponders } from './quota-responders.js';
import { subscribeUsage } from './usage-consumer.js';
import { subscribeTaskRefunds } from './task-refunds.js';
import { subscribeLimitLogs } from './limit-logs.js';
import { defaultPendingSweep, registerPendingSweep, type PendingSweepOptions } from './pending-requests.js';

export { billingConfigShape, billingSettings } from './config.js';
import { pricingRoutes } from './routes/pricing.js';
import { topupRoutes } from './routes/topup.js';
import { epayRoutes } from './routes/epay.js';

export interface BillingPluginOptions {
  infra: Infrastructure;
  /** PostgreSQL URL; SQLite under dataDir when absent. */
  databaseUrl?: string;
  dataDir: string;
  /** Database schema (PostgreSQL); tests pass their own. */
  schema?: string;
  /** Secret from which the key encrypting token keys at rest is derived. */
  tokenKeySecret: string;
  /** Cadence of the sweep recording requests of stopped relays (tests shorten it). */
  pendingSweep?: Partial<PendingSweepOptions>;
}

/** Billing: accounts, API tokens, redemption codes, online top-up, usage ledger, logs, dashboard data and pricing. */
const billingPlugin: FastifyPluginAsync<BillingPluginOptions> = async (app, options) => {
  useAccessControl(app, 'billing');
  const { kv, counters, jobs, logger } = options.infra;
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: options.dataDir,
    schema: options.schema ?? 'billing',
    entities: billingEntities,
    migrations: billingMigrations,
    logger,
  });
  // Every subscription goes through this bus, so what billing's consumers give up stays in its database.
  const deadLetters = keepDeadLetters(options.infra.bus, 'billing', { db, logger });
  const { bus } = deadLetters;
  const mirror = await createOptionsMirror({ bus, logger });
  const context: BillingContext = {
    db,
    bus,
    kv,
    counters,
    jobs,
    logger,
    options: mirror,
    tokenKeySecret: deriveKey(options.tokenKeySecret, 'billing.token-key'),
  };

  const subscriptions: Subscription[] = [
    ...(await subscribeAccountEvents(context)),
    ...(await registerAccountResponders(context)),
    ...(await registerTokenResponders(context)),
    await registerQuotaResponders(context),
    await subscribeUsage(context),
    await subscribeTaskRefunds(context),
    await subscribeLimitLogs(context),
  ];

  app.addHook('onClose', async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    await mirror.close();
    await db.destroy();
  });

  registerDiagnostics(app, 'billing', mirror);
  await registerLogRetention(context);
  await registerPendingSweep(context, { ...defaultPendingSweep, ...options.pendingSweep });
  for (const routes of [accountRoutes, redemptionRoutes, logRoutes, dataRoutes, tokenRoutes, pricingRoutes, topupRoutes])
    await app.register(routes, { context });
  await app.register(epayRoutes, { context });
  await app.register(deadLetterRoutes, { deadLetters });
};

export default billingPlugin;
