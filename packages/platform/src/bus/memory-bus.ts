import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import {
  BusRequestError,
  type Bus,
  type BusEvent,
  type DeadLetterSink,
  type EventHandler,
  type PublishOptions,
  type ReplyHandler,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus.js';
import { busMetrics } from './bus-metrics.js';
import { giveUp } from './give-up.js';
import { errorCode, errorMessage, eventDomain } from './subjects.js';

export interface MemoryBusOptions {
  logger: Logger;
  /** How long an event id is remembered to drop a republished duplicate, like JetStream's duplicate window. Default 2 minutes. */
  duplicateWindowMs?: number;
  /** Event ids remembered at most, the oldest forgotten first. Default 100,000. */
  duplicateIdsKept?: number;
}

/** Events waiting per consumer at most, so memory stays bounded like a stream with limits. */
const maxPendingEvents = 10_000;

/**
 * Events kept per subject for a durable consumer that subscribes after they were published (as a
 * JetStream stream keeps them). In one process every consumer subscribes at start, so these serve
 * the start (and tests) only: a subject nobody consumes yet keeps its last 1,000, one with a
 * consumer its last 10. Kept usage records were memory nothing read (10,000 once: half a minute at
 * 300 requests/s), and 1,000 of them (a second at 1,500 requests/s) each outlived two
 * young-generation collections, so every record was copied twice: the all-in-one process at one
 * request in flight promoted 980 bytes per request with 1,000 kept, 420 with none, and a
 * collection's pause follows what it copies.
 */
const keptUnconsumed = 1_000;
const keptConsumed = 10;

/**
 * An event as stored. Its data is one deep-frozen object that every delivery shares: nothing is
 * serialized in-process (the JSON round trip per consumer was a measurable share of the
 * all-in-one relay's time), and a consumer cannot change what another reads, as over the wire.
 */
interface StoredEvent {
  seq: number;
  id: string;
  subject: string;
  time: string;
  data: unknown;
  validated: boolean;
  trace?: string;
}

interface Delivery {
  stored: StoredEvent;
  attempt: number;
}

/** One subscribe call: its handler, where its given-up events go, and how many it runs at once. */
interface Subscriber {
  handler: EventHandler;
  deadLetter?: DeadLetterSink;
  wants?: (subject: string) => boolean;
  /**
   * Events it takes at a time (one by default: the per-subject order); several subscribers under
   * one durable name each take theirs, like pull subscribers of one JetStream consumer.
   */
  inFlight: number;
  /** Its deliveries in progress (unsubscribe waits for them). */
  running: Tally;
}

/** Like a JetStream consumer with a filter: one per (durable name, subject), or per subscription without a name. */
interface Consumer {
  /** The durable name, or the pattern for a subscription without one (what a dead letter names). */
  name: string;
  pattern: string;
  maxDeliver: number;
  retryDelayMs: number;
  pending: Delivery[];
  subscribers: Subscriber[];
  turn: number;
  /** Publishers waiting for an event (by sequence) to be handled: PublishOptions.confirmedBy. */
  confirmations: Map<number, Array<() => void>>;
  /** A pump is due on the next turn: the events published before it runs all go with it. */
  scheduled: boolean;
}

/**
 * Work in progress, counted: `idle()` resolves once there is none. A Set of each delivery's promise
 * did the same, but a Set that empties and fills again reallocates its table each time, and that
 * table, held by a long-lived Set, outlives a young-generation collection (several per request
 * in the all-in-one process, where every usage record has three consumers).
 */
class Tally {
  private count = 0;
  private waiting: Array<() => void> = [];

  begin(): void {
    this.count += 1;
  }

  end(): void {
    this.count -= 1;
    if (this.count > 0 || this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  get size(): number {
    return this.count;
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** The in-process Bus: same semantics as the NATS adapter, for the embedded topology and tests. */
export function createMemoryBus(options: MemoryBusOptions): Bus {
  const { logger } = options;
  const duplicateWindowMs = options.duplicateWindowMs ?? 2 * 60_000;
  const duplicateIdsKept = options.duplicateIdsKept ?? 100_000;
  const logs = new Map<string, StoredEvent[]>();
  const consumers = new Map<string, Consumer>();
  /** Subject -> the consumers whose patterns match it; forgotten whenever a consumer comes or goes. */
  const routes = new Map<string, Consumer[]>();
  const responders = new Map<string, { handlers: ReplyHandler[]; turn: number }>();
  /** Event id -> expiry; insertion order is expiry order because the window is fixed. */
  const recentIds = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  /** Deliveries and requests in progress, for close(). */
  const busy = new Tally();
  let sequence = 0;
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error('bus is closed');
  }

  function track<T>(work: Promise<T>): Promise<T> {
    busy.begin();
    void work.finally(() => busy.end()).catch(() => undefined);
    return work;
  }

  function isDuplicate(id: string): boolean {
    const now = Date.now();
    for (const [seenId, expiresAt] of recentIds) {
      if (expiresAt > now) break;
      recentIds.delete(seenId);
    }
    if (recentIds.has(id)) return true;
    recentIds.set(id, now + duplicateWindowMs);
    // Bounded as well: two minutes of a busy relay's ids (two per request) were over a million at
    // 5,000 requests/s, some 100 MB, and each rehash of a Map that size stopped the loop for tens
    // of ms. A publisher republishes within seconds (100,000 ids are 10 s at that rate); a later
    // duplicate is its consumer's to catch, as every handler is idempotent.
    if (recentIds.size > duplicateIdsKept) recentIds.delete(recentIds.keys().next().value!);
    return false;
  }

  function enqueue(consumer: Consumer, delivery: Delivery, atFront = false): void {
    if (atFront) consumer.pending.unshift(delivery);
    else consumer.pending.push(delivery);
    if (consumer.pending.length > maxPendingEvents) {
      const dropped = consumer.pending.shift()!;
      logger.warn({ subject: dropped.stored.subject, id: dropped.stored.id }, 'bus: consumer backlog full, oldest event dropped');
    }
    schedulePump(consumer);
  }

  /**
   * Never runs a handler inside publish: delivery is asynchronous, as over a network. One pump per
   * consumer and turn, however many events were published meanwhile (an Immediate per event and
   * consumer was a share of the all-in-one process's allocation: every usage record goes to three).
   */
  function schedulePump(consumer: Consumer): void {
    if (consumer.scheduled) return;
    consumer.scheduled = true;
    setImmediate(() => {
      consumer.scheduled = false;
      pump(consumer);
    });
  }

  /** The next subscriber, in turn, with room for another event. */
  function nextFree(consumer: Consumer): Subscriber | undefined {
    for (let looked = 0; looked < consumer.subscribers.length; looked++) {
      const subscriber = consumer.subscribers[consumer.turn++ % consumer.subscribers.length]!;
      if (subscriber.running.size < subscriber.inFlight) return subscriber;
    }
    return undefined;
  }

  function pump(consumer: Consumer): void {
    while (!closed && consumer.pending.length > 0) {
      const subscriber = nextFree(consumer);
      if (!subscriber) return;
      const delivery = consumer.pending.shift()!;
      if (delivery.attempt > 1) busMetrics.redelivered(delivery.stored.subject);
      subscriber.running.begin();
      busy.begin();
      // deliver never rejects: a failure is its redelivery or dead letter.
      void deliver(consumer, subscriber, delivery).then(() => {
        subscriber.running.end();
        busy.end();
        pump(consumer);
      });
    }
  }

  /**
   * One delivery: the handler, then its confirmation, or its failure. One async function rather
   * than a chain of then/catch/finally: fewer promises per delivery, and deliveries are several
   * per relayed request in the all-in-one process.
   */
  async function deliver(consumer: Consumer, subscriber: Subscriber, delivery: Delivery): Promise<void> {
    const { stored, attempt } = delivery;
    const event: BusEvent = { id: stored.id, subject: stored.subject, time: stored.time, data: stored.data, attempt };
    if (stored.validated) event.validated = true;
    if (stored.trace) event.trace = stored.trace;
    try {
      // Never inside pump's loop: the handler starts on a later microtask, as after a network hop.
      await Promise.resolve();
      await subscriber.handler(event);
      confirm(consumer, stored.seq);
    } catch (error) {
      await fail(consumer, subscriber, delivery, error);
    }
  }

  /** Runs inside the delivery, so the consumer takes its next event only after the dead letter is stored (as on NATS). */
  async function fail(consumer: Consumer, subscriber: Subscriber, delivery: Delivery, error: unknown): Promise<void> {
    const { stored, attempt } = delivery;
    if (attempt >= consumer.maxDeliver) {
      const letter = {
        id: stored.id,
        subject: stored.subject,
        time: stored.time,
        payload: JSON.stringify(stored.data) ?? '',
        consumer: consumer.name,
        pattern: consumer.pattern,
        error: errorMessage(error),
        attempts: attempt,
        failedAt: new Date().toISOString(),
      };
      await giveUp(logger, subscriber.deadLetter, letter, 'last-delivery', error);
      confirm(consumer, stored.seq);
      return;
    }
    logger.warn({ err: error, subject: stored.subject, id: stored.id, attempt }, 'bus: handler failed, event will be redelivered');
    const timer = setTimeout(() => {
      timers.delete(timer);
      // Like a JetStream redelivery: it comes before events not yet delivered.
      enqueue(consumer, { stored: delivery.stored, attempt: delivery.attempt + 1 }, true);
    }, consumer.retryDelayMs);
    timers.add(timer);
  }

  /** The event was handled (or given up to the dead letters): whoever published it waiting for that may go on. */
  function confirm(consumer: Consumer, seq: number): void {
    const waiting = consumer.confirmations.get(seq);
    if (!waiting) return;
    consumer.confirmations.delete(seq);
    for (const resolve of waiting) resolve();
  }

  /**
   * Whether a consumer takes an event of `subject`: not when every subscriber it has says it does
   * not want it (SubscribeOptions.wants; decided here, at publication, as the event reaches it).
   * One with no subscriber (a durable between subscriptions) keeps everything.
   */
  function wanted(consumer: Consumer, subject: string): boolean {
    if (consumer.subscribers.length === 0) return true;
    for (const subscriber of consumer.subscribers) if (!subscriber.wants || subscriber.wants(subject)) return true;
    return false;
  }

  /** Matched once per subject, not per event (every consumer's pattern against every subject was a share of each publish). */
  function routeOf(subject: string): Consumer[] {
    let route = routes.get(subject);
    if (!route) {
      route = [...consumers.values()].filter((consumer) => subjectMatches(consumer.pattern, subject));
      routes.set(subject, route);
    }
    return route;
  }

  /** A new durable consumer starts from everything retained (JetStream `deliver_policy: all`). */
  function createConsumer(pattern: string, subscribeOptions: SubscribeOptions, replay: boolean): Consumer {
    const retained = replay
      ? [...logs.entries()]
          .filter(([subject]) => subjectMatches(pattern, subject))
          .flatMap(([, events]) => events)
          .sort((a, b) => a.seq - b.seq)
          .slice(-keptUnconsumed)
      : [];
    return {
      name: subscribeOptions.durable ?? pattern,
      pattern,
      maxDeliver: subscribeOptions.maxDeliver ?? 5,
      retryDelayMs: subscribeOptions.retryDelayMs ?? 1000,
      pending: retained.map((stored) => ({ stored, attempt: 1 })),
      subscribers: [],
      turn: 0,
      confirmations: new Map(),
      scheduled: false,
    };
  }

  return {
    async publish(subject: string, data: unknown, publishOptions?: PublishOptions): Promise<BusEvent> {
      assertOpen();
      eventDomain(subject, false);
      const event: BusEvent = { id: publishOptions?.id ?? randomUUID(), subject, time: new Date().toISOString(), data, attempt: 1 };
      // An id made here cannot be published again: only a publisher's own ids are remembered.
      if (publishOptions?.id !== undefined && isDuplicate(event.id)) {
        busMetrics.published(subject);
        return event;
      }
      // Validated by the publisher: already its own copy. Anything else is copied, as the wire would.
      const own = publishOptions?.validated ? data : parse(JSON.stringify(data));
      const stored: StoredEvent = {
        seq: ++sequence,
        id: event.id,
        subject,
        time: event.time,
        data: deepFreeze(own),
        validated: publishOptions?.validated === true,
        ...(publishOptions?.trace ? { trace: publishOptions.trace } : {}),
      };
      const route = routeOf(subject);
      const log = logs.get(subject) ?? [];
      log.push(stored);
      // Trimmed in steps of what is kept: one splice per that many events, not a shift per event.
      const kept = route.length > 0 ? keptConsumed : keptUnconsumed;
      if (log.length >= 2 * kept) log.splice(0, log.length - kept);
      logs.set(subject, log);
      const confirmed: Array<Promise<void>> = [];
      for (const consumer of route) {
        if (!wanted(consumer, subject)) continue;
        if (consumer.name === publishOptions?.confirmedBy) confirmed.push(new Promise((resolve) => consumer.confirmations.set(stored.seq, [resolve])));
        enqueue(consumer, { stored, attempt: 1 });
      }
      busMetrics.published(subject);
      // Never resolved if the process stops first: the publisher keeps the event (its outbox) for the next start.
      await Promise.all(confirmed);
      return event;
    },

    async subscribe(subject: string, handler: EventHandler, subscribeOptions: SubscribeOptions): Promise<Subscription> {
      assertOpen();
      eventDomain(subject, true);
      const { durable } = subscribeOptions;
      // Without a durable name the consumer is this subscription's alone and starts empty.
      const key = durable ? `${durable}\u0000${subject}` : randomUUID();
      let consumer = consumers.get(key);
      if (!consumer) {
        consumer = createConsumer(subject, subscribeOptions, Boolean(durable));
        consumers.set(key, consumer);
        routes.clear();
      }
      // The latest subscriber's settings win, as when a JetStream consumer is updated.
      consumer.maxDeliver = subscribeOptions.maxDeliver ?? 5;
      consumer.retryDelayMs = subscribeOptions.retryDelayMs ?? 1000;
      const subscriber: Subscriber = {
        handler,
        deadLetter: subscribeOptions.deadLetter,
        wants: subscribeOptions.wants,
        inFlight: Math.max(1, subscribeOptions.inFlight ?? 1),
        running: new Tally(),
      };
      consumer.subscribers.push(subscriber);
      schedulePump(consumer);
      return {
        async unsubscribe() {
          const index = consumer.subscribers.indexOf(subscriber);
          if (index >= 0) consumer.subscribers.splice(index, 1);
          if (!durable && consumers.delete(key)) routes.clear();
          await subscriber.running.idle();
        },
      };
    },

    async request<T = unknown>(subject: string, data: unknown, requestOptions?: RequestOptions): Promise<T> {
      assertOpen();
      const responder = [...responders.entries()].find(([pattern, entry]) => entry.handlers.length > 0 && subjectMatches(pattern, subject))?.[1];
      if (!responder) throw new BusRequestError(`no responder for ${subject}`, subject, 'no-responder');
      const handler = responder.handlers[responder.turn++ % responder.handlers.length]!;
      const timeoutMs = requestOptions?.timeoutMs ?? 5000;
      const payload = JSON.stringify(data);
      const answer = track(
        (async () => {
          await new Promise((resolve) => setImmediate(resolve));
          return JSON.stringify(await handler(parse(payload)));
        })(),
      );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new BusRequestError(`no reply to ${subject} within ${timeoutMs} ms`, subject, 'timeout')), timeoutMs);
      });
      try {
        return parse(await Promise.race([answer, timeout])) as T;
      } catch (error) {
        if (error instanceof BusRequestError) throw error;
        logger.debug({ err: error, subject }, 'bus: responder failed');
        throw new BusRequestError(errorMessage(error), subject, 'remote-error', errorCode(error));
      } finally {
        clearTimeout(timer);
      }
    },

    async reply(subject: string, handler: ReplyHandler): Promise<Subscription> {
      assertOpen();
      const entry = responders.get(subject) ?? { handlers: [], turn: 0 };
      entry.handlers.push(handler);
      responders.set(subject, entry);
      return {
        async unsubscribe() {
          const index = entry.handlers.indexOf(handler);
          if (index >= 0) entry.handlers.splice(index, 1);
        },
      };
    },

    async close(): Promise<void> {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await busy.idle();
    },
  };
}

function parse(json: string | undefined): unknown {
  return json === undefined ? undefined : JSON.parse(json);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** NATS subject matching: `*` is one token, a final `>` is one or more tokens. */
function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  if (!pattern.includes('*') && !pattern.includes('>')) return false;
  const patternTokens = pattern.split('.');
  const subjectTokens = subject.split('.');
  for (const [index, token] of patternTokens.entries()) {
    if (token === '>') return subjectTokens.length > index;
    if (index >= subjectTokens.length || (token !== '*' && token !== subjectTokens[index])) return false;
  }
  return patternTokens.length === subjectTokens.length;
}
