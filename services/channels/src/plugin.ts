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
import type { ChannelsContext } from './context.js';
import { adoptPrivateNetworkDefault } from './channels.js';
import { channelsEntities } from './entities/index.js';
import { channelsMigrations } from './migrations/index.js';
import { registerResponders } from './responders.js';
import { subscribeHealth } from './health.js';
import { subscribeUsage } from './usage.js';
import { registerSweeps } from './operations.js';
import { registerSchedules } from './schedules.js';
import { channelRoutes } from './routes/channels.js';
import { channelTagRoutes } from './routes/channel-tags.js';
import { channelOperationRoutes } from './routes/channel-operations.js';
import { modelRoutes } from './routes/models.js';
import { channelKeyRoutes } from './routes/channel-key.js';
import { multiKeyRoutes } from './routes/multi-keys.js';

/** For main.ts and the gateway's all-in-one composition, which read the same env. */
export { channelsConfigShape, channelsSettings } from './config.js';

export interface ChannelsPluginOptions {
  infra: Infrastructure;
  /** PostgreSQL URL; SQLite under dataDir when absent. */
  databaseUrl?: string;
  dataDir: string;
  /** Database schema (PostgreSQL); tests pass their own. */
  schema?: string;
  /** Secret from which the key encrypting channel keys at rest is derived. */
  keySecret: string;
  /** Length of one minute of ChannelTestFrequency and ChannelUpdateFrequency; tests shorten it. Default 60 s. */
  scheduleMinuteMs?: number;
}

/** Channels: upstream channels, the abilities routing index, tags, tests, balances and model lists. */
const channelsPlugin: FastifyPluginAsync<ChannelsPluginOptions> = async (app, options) => {
  useAccessControl(app, 'channels');
  const { jobs, kv, logger } = options.infra;
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: options.dataDir,
    schema: options.schema ?? 'channels',
    entities: channelsEntities,
    migrations: channelsMigrations,
    logger,
  });
  // Every subscription goes through this bus, so what channels' consumers give up stays in its database.
  const deadLetters = keepDeadLetters(options.infra.bus, 'channels', { db, logger });
  const { bus } = deadLetters;
  const mirror = await createOptionsMirror({ bus, logger });
  const context: ChannelsContext = { db, bus, jobs, kv, logger, options: mirror, keySecret: deriveKey(options.keySecret, 'channels.key') };

  await adoptPrivateNetworkDefault(context);
  const subscriptions: Subscription[] = [...(await registerResponders(context)), ...(await subscribeHealth(context)), await subscribeUsage(context)];
  await registerSweeps(context);
  await registerSchedules(context, { minuteMs: options.scheduleMinuteMs ?? 60_000 });

  app.addHook('onClose', async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    await mirror.close();
    await db.destroy();
  });

  registerDiagnostics(app, 'channels', mirror);
  for (const routes of [channelRoutes, channelTagRoutes, channelOperationRoutes, modelRoutes, channelKeyRoutes, multiKeyRoutes])
    await app.register(routes, { context });
  await app.register(deadLetterRoutes, { deadLetters });
};

export default channelsPlugin;
