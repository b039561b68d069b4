import './tracing.js';
import { isLoopbackHost, loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import identityPlugin, { identityConfigShape, identitySettings } from './plugin.js';
import { version } from './version.js';

const config = loadConfig(serviceConfigSchema(3001, identityConfigShape));
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
    ...identitySettings(config),
    // Standalone, identity sees only its own address: a deployment that exposes the gateway while
    // identity listens on loopback should set INITIAL_ROOT_PASSWORD (README, rule R8).
    reachableBeyondLoopback: !isLoopbackHost(config.HOST),
  }),
});
