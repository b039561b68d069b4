import type { DataSource } from 'typeorm';
import type { Bus, Kv, Logger } from '@aigw/platform';
import type { OptionStore } from './options-store.js';
import type { SessionStore } from './sessions.js';

/** What identity's routes and responders work with; built once in plugin.ts. */
export interface IdentityContext {
  db: DataSource;
  bus: Bus;
  kv: Kv;
  logger: Logger;
  options: OptionStore;
  sessions: SessionStore;
  /** Shown in /api/status. */
  version: string;
  /** Process start, seconds since epoch. */
  startTime: number;
}
