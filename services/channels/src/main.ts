import './tracing.js';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import channelsPlugin, { channelsConfigShape, channelsSettings } from './plugin.js';

const config = loadConfig(serviceConfigSchema(3003, channelsConfigShape));
await runService({
  name: 'channels',
  config,
  plugin: channelsPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.NAMESPACE ? `${config.NAMESPACE}_channels` : undefined,
    ...channelsSettings(config),
  }),
});
