import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import relayPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3004, {}));
await runService({ name: 'relay', config, plugin: relayPlugin, pluginOptions: (infra) => ({ infra }) });
