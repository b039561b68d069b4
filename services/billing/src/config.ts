import { z } from 'zod';
import type { PendingSweepOptions } from './pending-requests.js';

/**
 * Billing's env fields beyond the base ones: its own process reads them, and so does the gateway
 * when it runs billing all-in-one (one declaration, the same names and bounds).
 */
export const billingConfigShape = {
  /** Secret the key encrypting API token keys at rest is derived from; every billing replica needs the same. */
  TOKEN_KEY_SECRET: z.string().min(32, 'TOKEN_KEY_SECRET must be at least 32 characters'),
  /**
   * How often requests of stopped relays are recorded (no usage, nothing charged); a relay's
   * lease must have been missing for half of it (and across two sweeps) first.
   */
  PENDING_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
};

type BillingConfig = z.infer<z.ZodObject<typeof billingConfigShape>>;

/** The plugin options those fields set. */
export function billingSettings(config: BillingConfig): { tokenKeySecret: string; pendingSweep: PendingSweepOptions } {
  return {
    tokenKeySecret: config.TOKEN_KEY_SECRET,
    pendingSweep: { everyMs: config.PENDING_SWEEP_INTERVAL_MS, confirmMs: Math.floor(config.PENDING_SWEEP_INTERVAL_MS / 2) },
  };
}
