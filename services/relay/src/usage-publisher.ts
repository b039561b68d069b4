import type { EventPayload, UsageRecord } from '@aigw/contracts';
import type { Bus, Logger } from '@aigw/platform';
import { publishRequestStarted, publishUsageRecorded } from './events.js';
import type { OutboxEvent, UsageOutbox } from './usage-outbox.js';

/**
 * Publishes the relay's money events with acknowledgement: `relay.usage.recorded` when a request
 * ended (event id = request id, so a republish is deduplicated) and `relay.request.started`
 * (event id `started-<request id>`) for a request still running `announceAfterMs` after its first
 * upstream call. A request that ends sooner is never announced: its record makes the
 * announcement moot, and most short requests then cost billing nothing extra (while it runs, its
 * hold in Redis carries its record for the sweeper). While the bus is away events wait in one
 * bounded spool, in order, and are retried. When the spool is full the relay refuses new
 * requests (503) rather than serve unbilled traffic (docs/architecture.md section 5, step 6).
 *
 * With an outbox (usage-outbox.ts) every event is written to it before it is sent and marked
 * done once the bus acknowledged it; the outbox bounds the spool then, and what a previous
 * process left in it is sent first.
 */
export interface UsagePublisher {
  /** `trace`: the request's W3C traceparent (tracing on), carried to billing in the message's headers. */
  publish(record: UsageRecord, trace?: string): void;
  started(started: EventPayload<'relay.request.started'>): void;
  /** Keeps what a running stream delivered so far, for a restart after this process died (the outbox). */
  checkpoint(record: UsageRecord): void;
  /**
   * A checkpoint that must be on disk before money moves (a record before its hold is settled):
   * resolves once it is written (the outbox writes a turn's lines together); rejects when that failed.
   */
  keep(record: UsageRecord): Promise<void>;
  /** False while the spool is full: callers must refuse new requests. */
  accepting(): boolean;
  /**
   * Sends what a previous process left in the outbox, before anything new waiting behind it. The
   * records of unfinished requests (their checkpoints) are skipped for `settledElsewhere`: the
   * requests whose holds the quota gate's start just released, which published their records
   * from the hold (the one place the counters were settled by).
   */
  resume(settledElsewhere: ReadonlySet<string>): void;
  /** Waits until every event was published (shutdown), at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

type Outgoing = { id: string; trace?: string } & (
  { subject: 'relay.usage.recorded'; payload: UsageRecord } | { subject: 'relay.request.started'; payload: EventPayload<'relay.request.started'> }
);

/** How long a request runs before billing is told about it. */
export const ANNOUNCE_AFTER_MS = 1_000;

export function createUsagePublisher(options: {
  bus: Bus;
  logger: Logger;
  spoolLimit?: number;
  retryDelayMs?: number;
  announceAfterMs?: number;
  /** Where events are kept until the bus acknowledged them; `recovered`: what a previous process left there. */
  outbox?: { outbox: UsageOutbox; recovered: OutboxEvent[] };
}): UsagePublisher {
  const { bus, logger } = options;
  const outbox = options.outbox?.outbox;
  const spoolLimit = options.spoolLimit ?? 10_000;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const announceAfterMs = options.announceAfterMs ?? ANNOUNCE_AFTER_MS;
  /** Announcements not yet due, by request id, in the order they were made (so due ones come first). */
  const deferred = new Map<string, { started: EventPayload<'relay.request.started'>; dueAt: number }>();
  let announcer: NodeJS.Timeout | undefined;
  const spool: Outgoing[] = [];
  let inFlight = 0;
  let draining = false;
  /** Shut down (flush returned): nothing is retried any more; what is left stays in the outbox. */
  let stopped = false;

  const send = async (event: Outgoing): Promise<boolean> => {
    try {
      if (event.subject === 'relay.usage.recorded') await publishUsageRecorded(bus, event.payload, event.trace);
      else await publishRequestStarted(bus, event.payload);
      outbox?.acknowledge(event.id);
      return true;
    } catch (error) {
      logger.warn({ err: error, subject: event.subject, id: event.id }, 'usage event not published yet; spooled');
      return false;
    }
  };

  const drain = async () => {
    if (draining) return;
    draining = true;
    while (spool.length > 0 && !stopped) {
      if (!(await send(spool[0]!))) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
        continue;
      }
      spool.shift();
    }
    draining = false;
  };

  const enqueue = (event: Outgoing) => {
    outbox?.append(event);
    // Behind a non-empty spool, wait in line: a request's started event stays before its record.
    if (spool.length > 0) {
      spool.push(event);
      return;
    }
    inFlight++;
    void send(event)
      .then((sent) => {
        if (!sent) {
          spool.push(event);
          void drain();
        }
      })
      .finally(() => inFlight--);
  };

  const announce = (started: EventPayload<'relay.request.started'>) =>
    enqueue({ id: `started-${started.record.request_id}`, subject: 'relay.request.started', payload: started });

  /** Announces what is due; the timer runs only while something waits. */
  const announceDue = (all = false) => {
    const now = Date.now();
    for (const [requestId, { started, dueAt }] of deferred) {
      if (!all && dueAt > now) break;
      deferred.delete(requestId);
      announce(started);
    }
    if (deferred.size === 0 && announcer) {
      clearInterval(announcer);
      announcer = undefined;
    }
  };

  return {
    resume(settledElsewhere) {
      // In its order, ahead of anything published since (already in the outbox: not appended again).
      const left: Outgoing[] = [];
      for (const event of options.outbox?.recovered ?? []) {
        if (event.fromCheckpoint && settledElsewhere.has(event.id)) outbox?.acknowledge(event.id);
        else left.push(event as Outgoing);
      }
      spool.unshift(...left);
      if (spool.length > 0) void drain();
    },
    publish(record, trace) {
      deferred.delete(record.request_id);
      enqueue({ id: record.request_id, subject: 'relay.usage.recorded', payload: record, ...(trace ? { trace } : {}) });
    },
    checkpoint(record) {
      outbox?.checkpoint(record);
    },
    async keep(record) {
      if (!outbox) return;
      outbox.checkpoint(record);
      await outbox.written();
    },
    started(started) {
      deferred.set(started.record.request_id, { started, dueAt: Date.now() + announceAfterMs });
      if (!announcer) {
        announcer = setInterval(() => announceDue(), Math.max(10, Math.floor(announceAfterMs / 4)));
        announcer.unref();
      }
    },
    accepting: () => (outbox ? outbox.hasRoom() : spool.length < spoolLimit),
    async flush(timeoutMs) {
      // Still running at shutdown: announce now, so billing keeps them beyond this process.
      announceDue(true);
      const deadline = Date.now() + timeoutMs;
      while ((inFlight > 0 || spool.length > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      stopped = true;
      if (spool.length > 0)
        logger.error(
          { spooled: spool.length, kept: outbox !== undefined },
          'usage events still unpublished at shutdown (kept in the outbox for the next start when there is one)',
        );
    },
  };
}
