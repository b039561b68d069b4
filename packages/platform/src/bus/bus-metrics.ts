import { eventSchemas } from '@aigw/contracts';
import { CounterFamily, OTHER } from '../metrics/families.js';
import type { GiveUpReason } from './give-up.js';

/** Both adapters count the same things here (docs/architecture.md section 11). */

const published = new CounterFamily({
  name: 'aigw_bus_published_total',
  help: 'Events the bus acknowledged as published (a duplicate id included), by subject.',
  labelNames: ['subject'],
});

const redelivered = new CounterFamily({
  name: 'aigw_bus_redeliveries_total',
  help: 'Deliveries of an event after its first to a consumer (its handler failed, or its ack was late), by subject.',
  labelNames: ['subject'],
});

const deadLettered = new CounterFamily({
  name: 'aigw_bus_dead_letters_total',
  help: 'Events a consumer gave up on (kept as a dead letter, or dropped when there is no sink), by subject and reason: last-delivery or undecodable.',
  labelNames: ['subject', 'reason'],
});

/** A subject of the event map; any other (a test's, or one forged on NATS) is `other`, so subjects cannot add series. */
function subjectLabel(subject: string): string {
  return Object.hasOwn(eventSchemas, subject) ? subject : OTHER;
}

export const busMetrics = {
  published(subject: string): void {
    published.child(subjectLabel(subject)).inc();
  },
  /** A delivery with attempt > 1. */
  redelivered(subject: string): void {
    redelivered.child(subjectLabel(subject)).inc();
  },
  deadLettered(subject: string, reason: GiveUpReason): void {
    deadLettered.child(subjectLabel(subject), reason).inc();
  },
};
