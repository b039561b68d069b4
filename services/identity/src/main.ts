import { z } from 'zod';
import { isLoopbackHost, loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import identityPlugin from './plugin.js';
import { version } from './version.js';

const configSchema = serviceConfigSchema(3001, {
  /** Password of the root user created on first start (else the factory default, with a warning). */
  INITIAL_ROOT_PASSWORD: z.string().min(8).max(20).optional(),
  /** Secret the keys sealing TOTP secrets and hashing backup codes are derived from; every identity replica needs the same. */
  TWO_FACTOR_KEY_SECRET: z.string().min(32, 'TWO_FACTOR_KEY_SECRET must be at least 32 characters'),
  /** How long a step-up (`POST /api/verify`) keeps sensitive actions such as a channel key reveal open. */
  STEP_UP_TTL_MS: z.coerce.number().int().positive().default(300_000),
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
    twoFactorKeySecret: config.TWO_FACTOR_KEY_SECRET,
    stepUpTtlMs: config.STEP_UP_TTL_MS,
    // Standalone, identity sees only its own address: a deployment that exposes the gateway while
    // identity listens on loopback should set INITIAL_ROOT_PASSWORD (README, rule R8).
    reachableBeyondLoopback: !isLoopbackHost(config.HOST),
  }),
});
