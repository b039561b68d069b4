import type { DataSource } from 'typeorm';
import type { Bus, Jobs, Logger, OptionsMirror } from '@aigw/platform';

/** What channels' routes, consumers and responders work with; built once in plugin.ts. */
export interface ChannelsContext {
  db: DataSource;
  bus: Bus;
  jobs: Jobs;
  logger: Logger;
  options: OptionsMirror;
  /** 32-byte key encrypting channel keys at rest (AES-256-GCM). */
  keySecret: Buffer;
}
