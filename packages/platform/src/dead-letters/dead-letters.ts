import type { DataSource } from 'typeorm';
import { deadLetterSubjects, msg, type DeadLetterReplayAll, type DeadLetterService } from '@aigw/contracts';
import type { Bus, BusEvent, DeadLetter, EventHandler, RequestOptions, Subscription } from '../bus/bus.js';
import { errorMessage } from '../bus/subjects.js';
import { NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import { publishEvent } from '../messaging.js';
import { createDeadLetterStore, type DeadLetterStore } from './dead-letter-store.js';
import type { DeadLetterRow } from './dead-letter.entity.js';

/**
 * A replay's outcome: handled (the dead letter is gone), or why it failed (it stays): the handler's
 * own words, as the row records them, or a `msg(id)` when nothing could run it.
 */
export type ReplayOutcome = { ok: true } | { ok: false; error: string };

/** A service's dead letters: where its consumers' given-up events go, and their replay. */
export interface DeadLetters {
  readonly service: DeadLetterService;
  /**
   * The bus the service subscribes through: each subscription's given-up events are kept in the
   * service's database, and its handler is remembered for replays. Closing it ends the service's
   * own subscriptions only; the shared bus is its owner's to close.
   */
  readonly bus: Bus;
  readonly store: DeadLetterStore;
  /** Runs a dead letter through its consumer's handler again; NotFoundError when there is no such row. */
  replay(id: number): Promise<ReplayOutcome>;
  /** Replays every dead letter once, oldest first. */
  replayAll(): Promise<DeadLetterReplayAll>;
}

export interface DeadLetterOptions {
  /** The service's own database, holding its `<service>_dead_letters` table. */
  db: DataSource;
  logger: Logger;
}

/** Rows read at a time by a replay of all. */
const REPLAY_BATCH = 100;

const announcements = new Set<string>(Object.values(deadLetterSubjects));
const consumerKey = (consumer: string, pattern: string): string => `${consumer}\n${pattern}`;

/**
 * Gives the service `service` its dead letters (docs/architecture.md section 3.10). The sink is a
 * subscription option, not the bus's: in the all-in-one process every service shares one bus,
 * and each event a consumer gives up must land in the database of the service that subscribed it,
 * once. A replay re-runs the stored event through that consumer's handler in this process rather
 * than republishing it, so the other consumers of the subject never see it twice.
 */
export function keepDeadLetters(bus: Bus, service: DeadLetterService, options: DeadLetterOptions): DeadLetters {
  const { logger } = options;
  const store = createDeadLetterStore(options.db, service);
  /** Handlers by consumer: several for replicas of one durable consumer (any of them may replay). */
  const handlers = new Map<string, EventHandler[]>();
  const subscriptions = new Set<Subscription>();

  async function keep(letter: DeadLetter): Promise<void> {
    const { row, created } = await store.record(letter);
    // Announced once; and never an announcement's own dead letter, which would announce without end.
    if (!created || announcements.has(letter.subject)) return;
    try {
      const waiting = await store.count();
      await publishEvent(
        bus,
        deadLetterSubjects[service],
        {
          service,
          dead_letter_id: row.id,
          event_id: row.event_id,
          subject: row.subject,
          consumer: row.consumer,
          error: row.error,
          attempts: row.attempts,
          failed_at: row.failed_at,
          waiting,
        },
        `dead-letter-${service}-${row.id}`,
      );
    } catch (error) {
      // It is stored, which is what matters: root sees it in the console all the same.
      logger.warn({ err: error, deadLetterId: row.id, subject: row.subject }, 'dead letter stored but not announced');
    }
  }

  function forget(key: string, handler: EventHandler): void {
    const list = handlers.get(key) ?? [];
    const index = list.indexOf(handler);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) handlers.delete(key);
  }

  const serviceBus: Bus = {
    publish: (subject, data, publishOptions) => bus.publish(subject, data, publishOptions),
    request: <T>(subject: string, data: unknown, requestOptions?: RequestOptions) => bus.request<T>(subject, data, requestOptions),
    reply: (subject, handler) => bus.reply(subject, handler),
    async subscribe(subject, handler, subscribeOptions) {
      const key = consumerKey(subscribeOptions.durable ?? subject, subject);
      handlers.set(key, [...(handlers.get(key) ?? []), handler]);
      let inner: Subscription;
      try {
        inner = await bus.subscribe(subject, handler, { deadLetter: keep, ...subscribeOptions });
      } catch (error) {
        forget(key, handler);
        throw error;
      }
      const subscription: Subscription = {
        async unsubscribe() {
          subscriptions.delete(subscription);
          forget(key, handler);
          await inner.unsubscribe();
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },
    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.unsubscribe()));
    },
  };

  async function runAgain(row: DeadLetterRow): Promise<ReplayOutcome> {
    const handler = handlers.get(consumerKey(row.consumer, row.pattern))?.[0];
    // Not a delivery: the row stays as it is (a consumer renamed or removed since; delete it).
    if (!handler) return { ok: false, error: msg('dead_letters.no_consumer', { consumer: row.consumer, pattern: row.pattern, service }) };
    const attempts = row.attempts + 1;
    let event: BusEvent;
    try {
      event = { id: row.event_id, subject: row.subject, time: row.time, data: row.payload === '' ? undefined : JSON.parse(row.payload), attempt: attempts };
    } catch (error) {
      // not a console message: the row's error, recorded as the bus's consumers record theirs.
      const message = `undecodable event: ${errorMessage(error)}`;
      await store.failedAgain(row.id, message, attempts);
      return { ok: false, error: message };
    }
    try {
      await handler(event);
    } catch (error) {
      await store.failedAgain(row.id, errorMessage(error), attempts);
      logger.warn({ err: error, deadLetterId: row.id, subject: row.subject, consumer: row.consumer }, 'dead letter failed again on replay');
      return { ok: false, error: errorMessage(error) };
    }
    await store.remove(row.id);
    logger.info({ deadLetterId: row.id, subject: row.subject, consumer: row.consumer }, 'dead letter replayed');
    return { ok: true };
  }

  return {
    service,
    bus: serviceBus,
    store,
    async replay(id) {
      const row = await store.find(id);
      if (!row) throw new NotFoundError(msg('dead_letters.not_found'));
      return runAgain(row);
    },
    async replayAll() {
      const tally: DeadLetterReplayAll = { replayed: 0, failed: 0 };
      let afterId = 0;
      for (;;) {
        const rows = await store.after(afterId, REPLAY_BATCH);
        if (rows.length === 0) return tally;
        for (const row of rows) {
          afterId = row.id;
          if ((await runAgain(row)).ok) tally.replayed += 1;
          else tally.failed += 1;
        }
      }
    },
  };
}
