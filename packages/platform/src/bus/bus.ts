/**
 * The Bus port: events (durable, at-least-once, deduplicated by event id) and request-reply
 * (synchronous reads between services). Two adapters: NATS JetStream (`NATS_URL` set) and
 * in-process. Both pass the same contract suite (test/contracts/bus.contract.ts).
 */

/** What a subscriber receives. `id` is unique per logical event and is the dedupe key. */
export interface BusEvent<T = unknown> {
  id: string;
  subject: string;
  /** ISO-8601 time of publication. */
  time: string;
  data: T;
  /** 1 on first delivery, then 2, 3, ... on redelivery after a handler failure. */
  attempt: number;
  /**
   * Published in this process with PublishOptions.validated: `data` passed its schema at publish
   * and is that validated object, frozen (the in-process bus only; never across a network).
   */
  validated?: true;
  /** The publisher's W3C traceparent (tracing on): the consumer's span continues its trace. */
  trace?: string;
}

export interface PublishOptions {
  /** Event id; a second publish with the same id inside the dedupe window is dropped. Default: random UUID. */
  id?: string;
  /**
   * The durable consumer whose handling makes the event safe. The in-process bus keeps events in
   * memory only, so its publish resolves once that consumer handled the event (or kept it as a
   * dead letter): the relay's usage outbox lets a record go only then. On NATS a publish resolves
   * once JetStream stored the event, which is durable by itself, and this is not needed.
   */
  confirmedBy?: string;
  /**
   * `data` was validated against its subject's schema by the publisher (platform's publishEvent),
   * which made it a copy of its own: the in-process bus hands that object, frozen, to every
   * consumer, who need not validate it again.
   */
  validated?: boolean;
  /** W3C traceparent to carry (a NATS message header); platform's publishEvent sets the active one. */
  trace?: string;
}

export interface SubscribeOptions {
  /**
   * Durable consumer name: survives restarts, and replicas with the same name share the work.
   * Omit it for a per-instance subscription (cache invalidation, option mirrors): every instance
   * gets every event published from the moment it subscribed, and nothing is kept after it goes.
   */
  durable?: string;
  /** Deliveries before the event is given up (to `deadLetter`, else logged and dropped). Default 5. */
  maxDeliver?: number;
  /** Wait before redelivering an event whose handler threw. Default 1000 ms. */
  retryDelayMs?: number;
  /**
   * Where an event goes when this subscriber's handler failed its last delivery, or (on NATS) the
   * message could not be decoded: the consuming service's dead letters (platform `dead-letters/`).
   * Awaited before the event is given up; without it, or when it throws, the event is logged and
   * dropped.
   */
  deadLetter?: DeadLetterSink;
  /**
   * Events this subscriber is handed at once. Default 1: one at a time, in publication order.
   * Above 1 the order is not kept; a consumer whose events commute (the usage ledger) uses it to
   * gather a batch from one subscription rather than from many.
   */
  inFlight?: number;
  /**
   * Whether this subscriber wants an event of `subject` at all, asked when the event reaches it
   * (on NATS once its envelope decoded, so a garbled one still reaches the dead letters; in one
   * process when it is published). One it does not want is acknowledged unhandled: no handler, no
   * validation, no redelivery. For a consumer of a whole domain that needs few of its
   * events at a time: the notifier's webhooks take `relay.>` for the endpoints of the moment,
   * and most usage records match none. Default: every event.
   */
  wants?: (subject: string) => boolean;
}

/** An event a consumer gave up on, as its dead-letter sink receives it. */
export interface DeadLetter {
  /** The event id (an undecodable message: its message id, else `seq-<stream sequence>`). */
  id: string;
  subject: string;
  /** ISO-8601 time of publication. */
  time: string;
  /** The event's data as JSON text; an undecodable message's body as received. */
  payload: string;
  /** The durable name, or the subscription's subject for a subscription without one. */
  consumer: string;
  /** The subject the consumer subscribed to (wildcards included). */
  pattern: string;
  /** The last failure's message. */
  error: string;
  /** Deliveries made, the failed last one included. */
  attempts: number;
  /** ISO-8601 time of the last failure. */
  failedAt: string;
}

export type DeadLetterSink = (letter: DeadLetter) => Promise<void>;

export interface RequestOptions {
  /** Give up waiting for a reply after this long. Default 5000 ms. */
  timeoutMs?: number;
}

export interface Subscription {
  unsubscribe(): Promise<void>;
}

export type EventHandler = (event: BusEvent) => Promise<void>;
export type ReplyHandler = (data: unknown) => Promise<unknown>;

export interface Bus {
  /** Publishes after the caller's change is committed; resolves once the event is stored. */
  publish(subject: string, data: unknown, options?: PublishOptions): Promise<BusEvent>;
  /**
   * Durable subscription. `subject` may use NATS wildcards (`*` one token, `>` the rest).
   * Events of one subject reach one consumer in publication order; a handler that throws
   * gets the event again after `retryDelayMs`, up to `maxDeliver` times, then it goes to the
   * subscription's `deadLetter` sink.
   */
  subscribe(subject: string, handler: EventHandler, options: SubscribeOptions): Promise<Subscription>;
  /** Sends a request to whoever replies on `subject`; rejects with BusRequestError on timeout, no responder or a lost connection. */
  request<T = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<T>;
  /** Answers requests on `subject`; replicas share the load. A thrown error is sent back to the requester. */
  reply(subject: string, handler: ReplyHandler): Promise<Subscription>;
  /** Stops consuming and waits for in-flight handlers. */
  close(): Promise<void>;
}

/**
 * A request got no answer: nobody replies on the subject, it timed out, the bus connection is
 * down (refused at once rather than after the timeout), or the responder threw.
 */
export class BusRequestError extends Error {
  constructor(
    message: string,
    readonly subject: string,
    readonly reason: 'timeout' | 'no-responder' | 'disconnected' | 'remote-error',
    /** The responder's error code, when reason is remote-error. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'BusRequestError';
  }
}
