import { z } from 'zod';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import { deliveryConfigShape, deliveryOptions } from './config.js';
import notifierPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3005, {
  /** Secret the key encrypting webhook signing secrets is derived from; every notifier replica needs the same. */
  NOTIFIER_KEY_SECRET: z.string().min(32, 'NOTIFIER_KEY_SECRET must be at least 32 characters'),
  ...deliveryConfigShape,
}));
await runService({
  name: 'notifier',
  config,
  plugin: notifierPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_notifier` : undefined,
    keySecret: config.NOTIFIER_KEY_SECRET,
    ...deliveryOptions(config),
  }),
});
