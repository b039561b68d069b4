import type { Kv } from '@aigw/platform';

/** How long a step-up (`POST /api/verify`) keeps sensitive actions open, unless configured. */
export const STEP_UP_TTL_MS_DEFAULT = 5 * 60_000;

/**
 * The step-up window of a console session: `POST /api/verify` records when the session's user
 * proved a second factor; sensitive actions (identity's own, and channels' key reveal through
 * the `identity.session.step-up` request) ask whether that is recent. Kept in the shared Kv with
 * the window as its TTL, keyed by the session (its sha256, as the gateway forwards it), so it
 * ends with the window, works on every replica, and belongs to one browser session only.
 */
export interface StepUpStore {
  /** Opens the window; returns when it closes (ms since epoch). */
  record(userId: number, session: string): Promise<number>;
  /** When the window was opened, if it still is and belongs to this user; else null. */
  verifiedAt(userId: number, session: string): Promise<number | null>;
}

export function createStepUpStore(kv: Kv, ttlMs: number): StepUpStore {
  const keyOf = (session: string) => `identity:step-up:${session}`;
  return {
    async record(userId, session) {
      const now = Date.now();
      await kv.set(keyOf(session), JSON.stringify({ user_id: userId, verified_at: now }), { ttlMs });
      return now + ttlMs;
    },
    async verifiedAt(userId, session) {
      const raw = await kv.get(keyOf(session));
      if (!raw) return null;
      const entry = JSON.parse(raw) as { user_id: number; verified_at: number };
      return entry.user_id === userId && Date.now() - entry.verified_at < ttlMs ? entry.verified_at : null;
    },
  };
}
