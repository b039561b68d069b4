import { z } from 'zod';
import { baseConfigShape, checkNatsCredentials, loadOrCreateSecret } from '@aigw/platform';
import { billingConfigShape } from '@aigw/billing/plugin';
import { channelsConfigShape } from '@aigw/channels/plugin';
import { identityConfigShape } from '@aigw/identity/plugin';
import { notifierConfigShape } from '@aigw/notifier/plugin';
import { relayConfigShape } from '@aigw/relay/plugin';

const serviceUrl = z.string().url().optional();

/**
 * Every service's own fields, as each service declares them for its main.ts: all-in-one, this
 * process runs them all and reads the same variables.
 */
export const servicesConfigShape = {
  ...identityConfigShape,
  ...billingConfigShape,
  ...channelsConfigShape,
  ...relayConfigShape,
  ...notifierConfigShape,
};

/**
 * The services' key secrets, which all-in-one may be left unset: each is then generated once
 * under DATA_DIR/secrets, in the file named here, and kept (never change one once data exists).
 */
export const generatedSecretFiles = {
  TOKEN_KEY_SECRET: 'token-key',
  CHANNEL_KEY_SECRET: 'channel-key',
  NOTIFIER_KEY_SECRET: 'notifier-key',
  TWO_FACTOR_KEY_SECRET: 'two-factor-key',
} as const;

type GeneratedSecret = keyof typeof generatedSecretFiles;

const optionalSecrets = Object.fromEntries(
  Object.keys(generatedSecretFiles).map((name) => [name, servicesConfigShape[name as GeneratedSecret].optional()]),
) as { [K in GeneratedSecret]: z.ZodOptional<(typeof servicesConfigShape)[K]> };

/** The gateway's configuration (env). Without service URLs it runs all-in-one. */
export const gatewayConfigSchema = z
  .object({
    ...baseConfigShape,
    /** Public port. */
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Distributed topology: URL of each service. All or none; none means all-in-one. */
    IDENTITY_URL: serviceUrl,
    BILLING_URL: serviceUrl,
    CHANNELS_URL: serviceUrl,
    RELAY_URL: serviceUrl,
    NOTIFIER_URL: serviceUrl,
    /** Folder of the built console; a placeholder page is served when it does not exist. */
    WEB_DIST_DIR: z.string().optional(),
    /** Login, registration, verification, reset and third-party login (`/api/oauth/*`) calls allowed per IP per window. */
    CRITICAL_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
    CRITICAL_RATE_LIMIT_WINDOW_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(20 * 60_000),
    /** Console API calls allowed per IP per window (0 = unlimited). */
    GLOBAL_API_RATE_LIMIT: z.coerce.number().int().min(0).default(180),
    GLOBAL_API_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(180_000),
    /** How long a resolved console credential is trusted before asking identity again. */
    CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().positive().default(60_000),
    /** All-in-one: every service's fields, declared by the service; its key secret may be left unset. */
    ...servicesConfigShape,
    ...optionalSecrets,
  })
  .superRefine((config, context) => {
    const urls = ['IDENTITY_URL', 'BILLING_URL', 'CHANNELS_URL', 'RELAY_URL', 'NOTIFIER_URL'] as const;
    const set = urls.filter((name) => config[name]);
    if (set.length > 0 && set.length < urls.length) {
      context.addIssue({
        code: 'custom',
        path: [urls.find((name) => !config[name])!],
        message: 'set every service URL for the distributed topology, or none for all-in-one',
      });
    }
    if (set.length > 0 && !config.INTERNAL_SECRET) {
      context.addIssue({ code: 'custom', path: ['INTERNAL_SECRET'], message: 'required when services run as separate processes' });
    }
    checkNatsCredentials(config, context);
  });

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function isDistributed(config: GatewayConfig): boolean {
  return Boolean(config.IDENTITY_URL);
}

/** All-in-one: the config with every key secret left unset generated (or read back) under DATA_DIR/secrets. */
export function withGeneratedSecrets(config: GatewayConfig): GatewayConfig & Record<GeneratedSecret, string> {
  const secrets = Object.fromEntries(
    Object.entries(generatedSecretFiles).map(([name, file]) => [name, config[name as GeneratedSecret] ?? loadOrCreateSecret(config.DATA_DIR, file)]),
  );
  return { ...config, ...(secrets as Record<GeneratedSecret, string>) };
}
