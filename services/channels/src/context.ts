import type { DataSource } from 'typeorm';
import type { Bus, Jobs, Kv, Logger, OptionsMirror } from '@aigw/platform';

/** What channels' routes, consumers and responders work with; built once in plugin.ts. */
export interface ChannelsContext {
  db: DataSource;
  bus: Bus;
  jobs: Jobs;
  /** Shared with the other replicas (Redis): the sweeps' locks and run records. */
  kv: Kv;
  logger: Logger;
  options: OptionsMirror;
  /** 32-byte key encrypting channel keys at rest (AES-256-GCM). */
  keySecret: Buffer;
}
