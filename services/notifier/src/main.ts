import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import notifierPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3005, {}));
await runService({ name: 'notifier', config, plugin: notifierPlugin, pluginOptions: (infra) => ({ infra }) });
