import { z } from 'zod';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import billingPlugin, { billingConfigShape, billingSettings } from './plugin.js';

const config = loadConfig(serviceConfigSchema(3002, {
  /** Secret the key encrypting API token keys at rest is derived from; every billing replica needs the same. */
  TOKEN_KEY_SECRET: z.string().min(32, 'TOKEN_KEY_SECRET must be at least 32 characters'),
  ...billingConfigShape,
}));
await runService({
  name: 'billing',
  config,
  plugin: billingPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_billing` : undefined,
    tokenKeySecret: config.TOKEN_KEY_SECRET,
    ...billingSettings(config),
  }),
});
