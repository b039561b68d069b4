import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import channelsPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3003, {}));
await runService({ name: 'channels', config, plugin: channelsPlugin, pluginOptions: (infra) => ({ infra }) });
