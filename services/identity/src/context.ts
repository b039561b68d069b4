import type { DataSource } from 'typeorm';
import type { Bus, Kv, Logger } from '@aigw/platform';
import type { OptionStore } from './options-store.js';
import type { SessionStore } from './sessions.js';
import type { SecondFactorStore } from './second-factors.js';
import type { PasskeyService } from './passkeys.js';
import type { StepUpStore } from './step-up.js';

/** What identity's routes and responders work with; built once in plugin.ts. */
export interface IdentityContext {
  db: DataSource;
  bus: Bus;
  kv: Kv;
  logger: Logger;
  options: OptionStore;
  sessions: SessionStore;
  /** TOTP and backup codes of users. */
  secondFactors: SecondFactorStore;
  passkeys: PasskeyService;
  /** The step-up window of console sessions (`POST /api/verify`). */
  stepUp: StepUpStore;
  /** 32-byte key sealing the secrets of users' notification settings at rest. */
  notificationKey: Buffer;
  /** The server listens beyond loopback (rule R8: the factory root password locks root until changed). */
  reachableBeyondLoopback: boolean;
  /** Shown in /api/status. */
  version: string;
  /** Process start, seconds since epoch. */
  startTime: number;
}
