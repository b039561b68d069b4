import { z } from 'zod';
import { baseConfigShape } from '@aigw/platform';
import { deliveryConfigShape } from '@aigw/notifier/plugin';
import { relayConfigShape } from '@aigw/relay/plugin';
import { billingConfigShape } from '@aigw/billing/plugin';

const serviceUrl = z.string().url().optional();

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
    /** Trust X-Forwarded-For / -Proto from an ingress or load balancer in front. */
    TRUST_PROXY: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
    /** All-in-one: secret for encrypting API token keys at rest (default: generated once under DATA_DIR/secrets). */
    TOKEN_KEY_SECRET: z.string().min(32).optional(),
    /** All-in-one: secret for encrypting channel keys at rest (default: generated once under DATA_DIR/secrets). */
    CHANNEL_KEY_SECRET: z.string().min(32).optional(),
    /** All-in-one: secret for encrypting webhook signing secrets at rest (default: generated once under DATA_DIR/secrets). */
    NOTIFIER_KEY_SECRET: z.string().min(32).optional(),
    /** All-in-one: secret for encrypting users' TOTP secrets at rest and keying backup-code hashes (default: generated once under DATA_DIR/secrets). */
    TWO_FACTOR_KEY_SECRET: z.string().min(32).optional(),
    /** All-in-one: how long a step-up (`POST /api/verify`) keeps sensitive actions such as a channel key reveal open. */
    STEP_UP_TTL_MS: z.coerce.number().int().positive().default(300_000),
    /** All-in-one: length of one minute of ChannelTestFrequency and ChannelUpdateFrequency; only tests shorten it. */
    SCHEDULE_MINUTE_MS: z.coerce.number().int().positive().default(60_000),
    /** All-in-one notifier: webhook and mail delivery tunables (WEBHOOK_*, MAIL_*), declared by the notifier. */
    ...deliveryConfigShape,
    /** All-in-one: password of the root user created on first start. */
    INITIAL_ROOT_PASSWORD: z.string().min(8).max(20).optional(),
    /** Login, registration, verification, reset and third-party login (`/api/oauth/*`) calls allowed per IP per window. */
    CRITICAL_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
    CRITICAL_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(20 * 60_000),
    /** Console API calls allowed per IP per window (0 = unlimited). */
    GLOBAL_API_RATE_LIMIT: z.coerce.number().int().min(0).default(180),
    GLOBAL_API_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(180_000),
    /** All-in-one relay: timeouts and quota-hold leases (STREAMING_*, UPSTREAM_*, INSTANCE_NAME, HOLD_*), declared by the relay. */
    ...relayConfigShape,
    /** All-in-one billing: PENDING_SWEEP_INTERVAL_MS, declared by billing. */
    ...billingConfigShape,
    /** How long a resolved console credential is trusted before asking identity again. */
    CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().positive().default(60_000),
  })
  .superRefine((config, context) => {
    const urls = ['IDENTITY_URL', 'BILLING_URL', 'CHANNELS_URL', 'RELAY_URL', 'NOTIFIER_URL'] as const;
    const set = urls.filter((name) => config[name]);
    if (set.length > 0 && set.length < urls.length) {
      context.addIssue({ code: 'custom', path: [urls.find((name) => !config[name])!], message: 'set every service URL for the distributed topology, or none for all-in-one' });
    }
    if (set.length > 0 && !config.INTERNAL_SECRET) {
      context.addIssue({ code: 'custom', path: ['INTERNAL_SECRET'], message: 'required when services run as separate processes' });
    }
  });

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function isDistributed(config: GatewayConfig): boolean {
  return Boolean(config.IDENTITY_URL);
}
