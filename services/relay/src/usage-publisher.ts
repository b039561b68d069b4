import type { EventPayload, UsageRecord } from '@aigw/contracts';
import type { Bus, Logger } from '@aigw/platform';
import { publishRequestStarted, publishUsageRecorded } from './events.js';

/**
 * Publishes the relay's money events with acknowledgement: `relay.usage.recorded` when a request
 * ended (event id = request id, so a republish is deduplicated) and `relay.request.started`
 * (event id `started-<request id>`) for a request still running `announceAfterMs` after its first
 * upstream call. A request that ends sooner is never announced: its record makes the
 * announcement moot, and most short requests then cost billing nothing extra (while it runs, its
 * hold in Redis carries its record for the sweeper). While the bus is away events wait in one
 * bounded spool, in order, and are retried. When the spool is full the relay refuses new
 * requests (503) rather than serve unbilled traffic (docs/architecture.md section 5, step 6).
 */
export interface UsagePublisher {
  publish(record: UsageRecord): void;
  started(started: EventPayload<'relay.request.started'>): void;
  /** False while the spool is full: callers must refuse new requests. */
  accepting(): boolean;
  /** Waits until every event was published (shutdown), at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

type Outgoing =
  { subject: 'relay.usage.recorded'; payload: UsageRecord } | { subject: 'relay.request.started'; payload: EventPayload<'relay.request.started'> };

/** How long a request runs before billing is told about it. */
export const ANNOUNCE_AFTER_MS = 1_000;

export function createUsagePublisher(options: {
  bus: Bus;
  logger: Logger;
  spoolLimit?: number;
  retryDelayMs?: number;
  announceAfterMs?: number;
}): UsagePublisher {
  const { bus, logger } = options;
  const spoolLimit = options.spoolLimit ?? 10_000;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const announceAfterMs = options.announceAfterMs ?? ANNOUNCE_AFTER_MS;
  /** Announcements not yet due, by request id, in the order they were made (so due ones come first). */
  const deferred = new Map<string, { started: EventPayload<'relay.request.started'>; dueAt: number }>();
  let announcer: NodeJS.Timeout | undefined;
  const spool: Outgoing[] = [];
  let inFlight = 0;
  let draining = false;

  const send = async (event: Outgoing): Promise<boolean> => {
    try {
      if (event.subject === 'relay.usage.recorded') await publishUsageRecorded(bus, event.payload);
      else await publishRequestStarted(bus, event.payload);
      return true;
    } catch (error) {
      const requestId = event.subject === 'relay.usage.recorded' ? event.payload.request_id : event.payload.record.request_id;
      logger.warn({ err: error, subject: event.subject, requestId }, 'usage event not published yet; spooled');
      return false;
    }
  };

  const drain = async () => {
    if (draining) return;
    draining = true;
    while (spool.length > 0) {
      if (!(await send(spool[0]!))) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
        continue;
      }
      spool.shift();
    }
    draining = false;
  };

  const enqueue = (event: Outgoing) => {
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

  const announce = (started: EventPayload<'relay.request.started'>) => enqueue({ subject: 'relay.request.started', payload: started });

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
    publish(record) {
      deferred.delete(record.request_id);
      enqueue({ subject: 'relay.usage.recorded', payload: record });
    },
    started(started) {
      deferred.set(started.record.request_id, { started, dueAt: Date.now() + announceAfterMs });
      if (!announcer) {
        announcer = setInterval(() => announceDue(), Math.max(10, Math.floor(announceAfterMs / 4)));
        announcer.unref();
      }
    },
    accepting: () => spool.length < spoolLimit,
    async flush(timeoutMs) {
      // Still running at shutdown: announce now, so billing keeps them beyond this process.
      announceDue(true);
      const deadline = Date.now() + timeoutMs;
      while ((inFlight > 0 || spool.length > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      if (spool.length > 0) logger.error({ spooled: spool.length }, 'usage events still unpublished at shutdown');
    },
  };
}
