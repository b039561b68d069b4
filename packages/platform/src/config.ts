import { z } from 'zod';
import fs from 'node:fs';

/**
 * Config is one zod schema per service over the environment, parsed once at boot (style rule 4,
 * CONTRIBUTING.md). Nothing else reads process.env. A variable `NAME_FILE` is read from that file
 * when `NAME` itself is not set (for secrets mounted as files).
 */

/** Fields every service shares. Units are in the names. */
export const baseConfigShape = {
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Address to listen on. */
  HOST: z.string().default('0.0.0.0'),
  /** PostgreSQL URL; when unset the service uses SQLite at DATA_DIR/app.db. */
  DATABASE_URL: z.string().url().optional(),
  /** Folder for the SQLite database and generated secrets when no DATABASE_URL is set. */
  DATA_DIR: z.string().default('./data'),
  /** NATS URL (JetStream enabled); when unset the bus is in-process. */
  NATS_URL: z.string().optional(),
  /** Copies of each JetStream event stream; 3 on a production JetStream cluster (docs/architecture.md section 4). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * The NATS user this process connects as, with NATS_PASSWORD: one user per service, allowed to
   * publish and read only what the service declares (deploy/nats/authorization.conf,
   * docs/architecture.md section 4.1). Unset: no authentication, for a server without users.
   */
  NATS_USER: z.string().min(1).optional(),
  /** NATS_USER's password (a secret: NATS_PASSWORD_FILE reads it from a mounted file). */
  NATS_PASSWORD: z.string().min(1).optional(),
  /** Redis URL; when unset jobs, counters and the kv store are in-process. */
  REDIS_URL: z.string().optional(),
  /** Prefix of bus subjects, stream names and Redis keys, to share servers between deployments. */
  NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_]*$/)
    .default(''),
  /** HMAC key for identities forwarded by the gateway to services. Required when services run as separate processes. */
  INTERNAL_SECRET: z.string().min(32, 'INTERNAL_SECRET must be at least 32 characters').optional(),
  /** Largest accepted request body, in bytes. */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** Time allowed for in-flight requests to finish after SIGTERM. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Port of the Prometheus endpoint (`GET /metrics` on a listener of its own on HOST, never the
   * public port): unset, no listener; 0, any free port. The Kubernetes manifests use 9464.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * Trust X-Forwarded-For / -Proto from an ingress or load balancer in front: the gateway's, and
   * the relay's where the ingress sends the relay's paths straight to it (deploy/k8s). Only for a
   * process clients cannot reach but through that proxy, or they could claim any address.
   */
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * How far the V8 heap grows past what the last full collection kept before it collects again,
   * in percent (heap.ts): 50 keeps a steady load's resident memory flat; 0 leaves V8's own factor.
   */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(50),
};

export const baseConfigSchema = z.object(baseConfigShape).superRefine(checkNatsCredentials);
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/**
 * NATS_USER and NATS_PASSWORD come together: one without the other would only be refused by the
 * server later, as an authorization error at start. For the schemas' superRefine.
 */
export function checkNatsCredentials(config: { NATS_USER?: unknown; NATS_PASSWORD?: unknown }, context: z.RefinementCtx): void {
  if (Boolean(config.NATS_USER) === Boolean(config.NATS_PASSWORD)) return;
  context.addIssue({
    code: 'custom',
    path: [config.NATS_USER ? 'NATS_PASSWORD' : 'NATS_USER'],
    message: 'set NATS_USER and NATS_PASSWORD together, or neither',
  });
}

/** Resolves `NAME_FILE` into `NAME` (the file's trimmed content) for the schema's fields, unless NAME is set. */
export function withFileSecrets(env: Record<string, string | undefined>, names: string[]): Record<string, string | undefined> {
  const resolved = { ...env };
  for (const name of names) {
    const file = env[`${name}_FILE`];
    if (file && resolved[name] === undefined) resolved[name] = fs.readFileSync(file, 'utf8').trim();
  }
  return resolved;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment with `schema`; throws ConfigError listing every problem. */
export function parseConfig<T extends z.ZodType>(schema: T, env: Record<string, string | undefined>): z.infer<T> {
  const names = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const result = schema.safeParse(withFileSecrets(env, names));
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
}

/** For main.ts: parse, or print every problem and exit non-zero. */
export function loadConfig<T extends z.ZodType>(schema: T, env: Record<string, string | undefined> = process.env): z.infer<T> {
  try {
    return parseConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
