import { z } from 'zod';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import identityPlugin from './plugin.js';
import { version } from './version.js';

const configSchema = serviceConfigSchema(3001, {
  /** Password of the root user created on first start (else the factory default, with a warning). */
  INITIAL_ROOT_PASSWORD: z.string().min(8).max(20).optional(),
});

const config = loadConfig(configSchema);
await runService({
  name: 'identity',
  config,
  plugin: identityPlugin,
  pluginOptions: (infra) => ({
    infra,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    // Deployments sharing one database (and test runs) keep apart by NAMESPACE.
    schema: config.NAMESPACE ? `${config.NAMESPACE}_identity` : undefined,
    version,
    initialRootPassword: config.INITIAL_ROOT_PASSWORD,
  }),
});
