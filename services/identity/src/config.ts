import { z } from 'zod';
import { STEP_UP_TTL_MS_DEFAULT } from './step-up.js';

/**
 * Identity's env fields beyond the base ones: its own process reads them, and so does the
 * gateway when it runs identity all-in-one (one declaration, the same names and bounds).
 */
export const identityConfigShape = {
  /** Password of the root user created on first start (else the factory default, with a warning). */
  INITIAL_ROOT_PASSWORD: z.string().min(8).max(20).optional(),
  /** Secret the keys sealing TOTP secrets and hashing backup codes are derived from; every identity replica needs the same. */
  TWO_FACTOR_KEY_SECRET: z.string().min(32, 'TWO_FACTOR_KEY_SECRET must be at least 32 characters'),
  /** How long a step-up (`POST /api/verify`) keeps sensitive actions such as a channel key reveal open. */
  STEP_UP_TTL_MS: z.coerce.number().int().positive().default(STEP_UP_TTL_MS_DEFAULT),
};

type IdentityConfig = z.infer<z.ZodObject<typeof identityConfigShape>>;

/** The plugin options those fields set. */
export function identitySettings(config: IdentityConfig): { initialRootPassword?: string; twoFactorKeySecret: string; stepUpTtlMs: number } {
  return { initialRootPassword: config.INITIAL_ROOT_PASSWORD, twoFactorKeySecret: config.TWO_FACTOR_KEY_SECRET, stepUpTtlMs: config.STEP_UP_TTL_MS };
}
