import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import billingPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3002, {}));
await runService({ name: 'billing', config, plugin: billingPlugin, pluginOptions: (infra) => ({ infra }) });
