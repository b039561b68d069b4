import type { UsageRecord } from '@aigw/contracts';
import { publishEvent, type Bus, type Logger } from '@aigw/platform';

/**
 * Publishes `relay.usage.recorded` (event id = request id, so a republish is deduplicated) with
 * acknowledgement; while the bus is away records wait in a bounded spool and are retried. When
 * the spool is full the relay refuses new requests (503) rather than serve unbilled traffic
 * (DESIGN section 5).
 */
export interface UsagePublisher {
  publish(record: UsageRecord): void;
  /** False while the spool is full: callers must refuse new requests. */
  accepting(): boolean;
  /** Waits until every record was published (shutdown), at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

export function createUsagePublisher(options: { bus: Bus; logger: Logger; spoolLimit?: number; retryDelayMs?: number }): UsagePublisher {
  const { bus, logger } = options;
  const spoolLimit = options.spoolLimit ?? 10_000;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const spool: UsageRecord[] = [];
  let inFlight = 0;
  let draining = false;

  const send = async (record: UsageRecord): Promise<boolean> => {
    try {
      await publishEvent(bus, 'relay.usage.recorded', record, record.request_id);
      return true;
    } catch (error) {
      logger.warn({ err: error, requestId: record.request_id }, 'usage record not published yet; spooled');
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

  return {
    publish(record) {
      inFlight++;
      void send(record)
        .then((sent) => {
          if (!sent) {
            spool.push(record);
            void drain();
          }
        })
        .finally(() => inFlight--);
    },
    accepting: () => spool.length < spoolLimit,
    async flush(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while ((inFlight > 0 || spool.length > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      if (spool.length > 0) logger.error({ spooled: spool.length }, 'usage records still unpublished at shutdown');
    },
  };
}
