import './tracing.js';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import relayPlugin, { relayConfigShape, relaySettings } from './plugin.js';

const config = loadConfig(serviceConfigSchema(3004, relayConfigShape));
await runService({
  name: 'relay',
  config,
  plugin: relayPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_relay` : undefined,
    ...relaySettings(config),
  }),
});
