import type { DataSource } from 'typeorm';
import type { Bus, Jobs, Kv, Logger, OptionsMirror } from '@aigw/platform';

/** What the notifier's routes, consumers and job handlers work with; built once in plugin.ts. */
export interface NotifierContext {
  db: DataSource;
  bus: Bus;
  jobs: Jobs;
  kv: Kv;
  logger: Logger;
  options: OptionsMirror;
  /** 32-byte key encrypting webhook signing secrets at rest (AES-256-GCM). */
  keySecret: Buffer;
}
