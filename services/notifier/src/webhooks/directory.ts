import type { DataSource } from 'typeorm';
import { subjectMatches, webhookSubjects, type EventSubject } from '@aigw/contracts';
import type { Logger } from '@aigw/platform';
import { WebhookEndpointEntity } from '../entities/index.js';
import { parseSubjects } from './endpoints.js';

/** An enabled endpoint as the bus consumer needs it: no secret (the job reads that from the row). */
export interface DirectoryEndpoint {
  id: number;
  url: string;
}

/**
 * The enabled endpoints in memory, indexed by the subjects their filters match, so an event
 * costs one map lookup and no SQL (none at all when no endpoint exists). Reloaded after every
 * change made here and every `refreshMs`, for changes another replica made; a job re-reads its
 * endpoint before calling it, so a stale entry can never deliver to a disabled or deleted one.
 */
export interface WebhookDirectory {
  /** Enabled endpoints whose filter matches `subject`. */
  matching(subject: string): readonly DirectoryEndpoint[];
  /** Reloads from the table now. */
  refresh(): Promise<void>;
  close(): void;
}

export async function createWebhookDirectory(options: { db: DataSource; logger: Logger; refreshMs: number }): Promise<WebhookDirectory> {
  const { db, logger } = options;
  let bySubject = new Map<EventSubject, DirectoryEndpoint[]>();
  let generation = 0;

  async function refresh(): Promise<void> {
    const mine = ++generation;
    const rows = await db.getRepository(WebhookEndpointEntity).find({ where: { enabled: true }, order: { id: 'ASC' } });
    // A slower, older reload must not overwrite a newer one.
    if (mine !== generation) return;
    const index = new Map<EventSubject, DirectoryEndpoint[]>();
    for (const row of rows) {
      const patterns = parseSubjects(row.subjects);
      for (const subject of webhookSubjects) {
        if (!patterns.some((pattern) => subjectMatches(pattern, subject))) continue;
        const list = index.get(subject) ?? [];
        list.push({ id: row.id, url: row.url });
        index.set(subject, list);
      }
    }
    bySubject = index;
  }

  await refresh();
  const timer = setInterval(() => {
    refresh().catch((error: unknown) => logger.warn({ err: error }, 'webhooks: endpoint reload failed'));
  }, options.refreshMs);
  timer.unref();

  return {
    matching: (subject) => bySubject.get(subject as EventSubject) ?? [],
    refresh,
    close: () => clearInterval(timer),
  };
}
