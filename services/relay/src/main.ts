import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import relayPlugin, { relayConfigShape, relaySettings } from './plugin.js';

const config = loadConfig(serviceConfigSchema(3004, relayConfigShape));
await runService({
  name: 'relay',
  config,
  plugin: relayPlugin,
  pluginOptions: (infra) => ({ infra, preloadTokenizers: true, ...relaySettings(config) }),
});
