import type { DataSource } from 'typeorm';
import type { Bus, Counters, Jobs, Kv, Logger, OptionsMirror } from '@aigw/platform';

/** What billing's routes, consumers and responders work with; built once in plugin.ts. */
export interface BillingContext {
  db: DataSource;
  bus: Bus;
  kv: Kv;
  counters: Counters;
  jobs: Jobs;
  logger: Logger;
  options: OptionsMirror;
  /** 32-byte key encrypting token keys at rest (AES-256-GCM). */
  tokenKeySecret: Buffer;
}
