import './tracing.js';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import billingPlugin, { billingConfigShape, billingSettings } from './plugin.js';

const config = loadConfig(serviceConfigSchema(3002, billingConfigShape));
await runService({
  name: 'billing',
  config,
  plugin: billingPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_billing` : undefined,
    ...billingSettings(config),
  }),
});
