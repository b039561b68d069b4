import './tracing.js';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import notifierPlugin, { notifierConfigShape, notifierSettings } from './plugin.js';

const config = loadConfig(serviceConfigSchema(3005, notifierConfigShape));
await runService({
  name: 'notifier',
  config,
  plugin: notifierPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_notifier` : undefined,
    ...notifierSettings(config),
  }),
});
