import { z } from 'zod';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import channelsPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3003, {
  /** Secret the key encrypting channel keys at rest is derived from; every channels replica needs the same. */
  CHANNEL_KEY_SECRET: z.string().min(32, 'CHANNEL_KEY_SECRET must be at least 32 characters'),
  /** Length of one minute of ChannelTestFrequency and ChannelUpdateFrequency; only tests shorten it. */
  SCHEDULE_MINUTE_MS: z.coerce.number().int().positive().default(60_000),
}));
await runService({
  name: 'channels',
  config,
  plugin: channelsPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_channels` : undefined,
    keySecret: config.CHANNEL_KEY_SECRET,
    scheduleMinuteMs: config.SCHEDULE_MINUTE_MS,
  }),
});
