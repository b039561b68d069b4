import type { Logger } from '../logger.js';
import type { DeadLetter, DeadLetterSink } from './bus.js';
import { busMetrics } from './bus-metrics.js';

/** Why a consumer gives an event up. */
export type GiveUpReason = 'last-delivery' | 'undecodable';

const dropped: Record<GiveUpReason, string> = {
  'last-delivery': 'bus: event dropped after its last delivery',
  undecodable: 'bus: undecodable event dropped',
};
const kept: Record<GiveUpReason, string> = {
  'last-delivery': 'bus: event kept as a dead letter after its last delivery',
  undecodable: 'bus: undecodable event kept as a dead letter',
};

/**
 * The end of an event on one consumer, the same in both adapters: it goes to the subscription's
 * dead-letter sink, else (or when the sink fails: its database is away) it is dropped. Logged at
 * error level either way, since a consumer failed for good; the payload stays out of the log.
 */
export async function giveUp(logger: Logger, sink: DeadLetterSink | undefined, letter: DeadLetter, reason: GiveUpReason, cause: unknown): Promise<void> {
  const fields = { subject: letter.subject, id: letter.id, consumer: letter.consumer, attempt: letter.attempts };
  busMetrics.deadLettered(letter.subject, reason);
  if (!sink) {
    logger.error(Object.assign({ err: cause }, fields), dropped[reason]);
    return;
  }
  try {
    await sink(letter);
  } catch (error) {
    logger.error(Object.assign({ err: error, error: letter.error }, fields), `${dropped[reason]}: its dead letter was not stored`);
    return;
  }
  logger.error(Object.assign({ err: cause }, fields), kept[reason]);
}
