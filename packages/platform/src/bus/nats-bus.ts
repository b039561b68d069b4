import { createHash, randomUUID } from 'node:crypto';
import {
  AckPolicy,
  DeliverPolicy,
  ErrorCode,
  Events,
  StorageType,
  connect,
  headers as natsHeaders,
  nanos,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamPublishOptions,
  type JsMsg,
  type Msg,
  type NatsConnection,
  type PubAck,
  type Subscription as NatsSubscription,
} from 'nats';
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
import { natsInboxPrefix } from './nats-permissions.js';
import { errorCode, errorMessage, eventDomain } from './subjects.js';

export interface NatsBusOptions {
  url: string;
  /** Prefix of every subject and stream, so several deployments (or test files) share one server. */
  namespace?: string;
  logger: Logger;
  /** How long JetStream remembers an event id to drop a republished duplicate. Default 2 minutes. */
  duplicateWindowMs?: number;
  /** Copies of each stream in a JetStream cluster (3 in production: a single node loses acked messages on a crash). Default 1. */
  streamReplicas?: number;
  /** The NATS user this process connects as (one per service, deploy/nats/authorization.conf); unset: no authentication. */
  user?: string;
  /** That user's password. */
  password?: string;
}

/** Events older than this leave the stream, so disk use stays bounded; consumers are expected back sooner. */
const streamMaxAgeMs = 7 * 24 * 60 * 60_000;
/** A per-instance consumer left behind by a crashed process is removed by the server after this. */
const ephemeralIdleMs = 5 * 60_000;
/** A handler that holds an event longer than this gets it redelivered to a replica. */
const ackWaitMs = 30_000;
/** Messages pulled ahead per consumer; small, so buffered ones are handled well within ackWaitMs. */
const pullBatch = 16;
/** The queue group that makes replicas of a responder share requests. */
const responderQueue = 'responders';

/** What travels in a stream message. The subject is stored without the namespace. */
interface Envelope {
  id: string;
  subject: string;
  time: string;
  data: unknown;
}

type ReplyEnvelope = { ok: true; data: unknown } | { ok: false; error: { message: string; code?: string } };

interface RunningConsumer {
  stop(): Promise<void>;
}

/** What handling a message of one subscription needs besides the message. */
interface Subscriber {
  handler: EventHandler;
  /** The durable name, or the pattern for a subscription without one (what a dead letter names). */
  consumer: string;
  pattern: string;
  maxDeliver: number;
  retryDelayMs: number;
  deadLetter?: DeadLetterSink;
  wants?: (subject: string) => boolean;
}

/**
 * The Bus on NATS: events go to one JetStream stream per domain (first subject token) with the
 * event id as message id; requests use core NATS under `rpc.` so the streams never answer them.
 */
export async function createNatsBus(options: NatsBusOptions): Promise<Bus> {
  const { logger, namespace } = options;
  const duplicateWindowMs = options.duplicateWindowMs ?? 2 * 60_000;
  const streamReplicas = options.streamReplicas ?? 1;
  // Keep reconnecting however long NATS is away: giving up would leave a service deaf for good.
  // A user's inboxes carry its name: the server lets each user read its own replies only (nats-permissions.ts).
  const credentials = options.user ? { user: options.user, pass: options.password, inboxPrefix: natsInboxPrefix(options.user) } : {};
  // noAsyncTraces: the client would otherwise capture a stack (new Error()) for every request and
  // JetStream publish, in case it times out: 5% of the relay's CPU at full load, for a trace we never read.
  const nc = await connect({
    servers: options.url,
    name: namespace ? `bus:${namespace}` : 'bus',
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
    ...credentials,
  });
  // While NATS is away a request cannot be answered: refuse it at once instead of after its timeout.
  let connected = true;
  void watchConnection(nc, logger, (up) => (connected = up));
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  const streams = new Map<string, Promise<string>>();
  const consumers = new Set<RunningConsumer>();
  const responders = new Set<NatsSubscription>();
  const replies = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;

  /**
   * Publishes and acks of one turn of the event loop go out together at its end. The client writes
   * what it buffered at the next microtask checkpoint, so those made from separate callbacks of a
   * turn (requests finishing one after another, handlers settling) would each cost a socket write:
   * at full load the relay's largest single cost (8% of its CPU), and each also wakes the server.
   */
  const turn: Array<() => void> = [];
  const sendTurn = () => {
    for (const send of turn.splice(0)) send();
  };
  const atTurnEnd = (send: () => void) => {
    if (turn.length === 0) setImmediate(sendTurn);
    turn.push(send);
  };
  /** Publishes not yet acknowledged: close() waits for them. */
  const publishing = new Set<Promise<PubAck>>();
  const publishAtTurnEnd = (subject: string, payload: Uint8Array, publishOptions: Partial<JetStreamPublishOptions>) => {
    const sent = new Promise<PubAck>((resolve, reject) =>
      atTurnEnd(() => {
        js.publish(subject, payload, publishOptions).then(resolve, reject);
      }),
    );
    publishing.add(sent);
    const forget = () => publishing.delete(sent);
    sent.then(forget, forget);
    return sent;
  };
  /** An ack that cannot be sent (the connection closed) is not an error: the server redelivers the message. */
  const ackAtTurnEnd = (message: JsMsg) =>
    atTurnEnd(() => {
      try {
        message.ack();
      } catch (error) {
        logger.warn({ err: error, subject: message.subject }, 'bus: ack not sent, the message will be redelivered');
      }
    });

  const qualify = (subject: string): string => (namespace ? `${namespace}.${subject}` : subject);
  /** Requests live under `rpc.`, beside the event domains, so no stream captures (and acks) them. */
  const rpcSubject = (subject: string): string => qualify(`rpc.${subject}`);

  function assertOpen(): void {
    if (closing) throw new Error('bus is closed');
  }

  /** Creates the domain's stream on first use; the promise is cached so it is checked once. */
  function ensureStream(domain: string): Promise<string> {
    let stream = streams.get(domain);
    if (!stream) {
      stream = addStreamIfMissing(domain);
      streams.set(domain, stream);
      stream.catch(() => streams.delete(domain));
    }
    return stream;
  }

  async function addStreamIfMissing(domain: string): Promise<string> {
    const name = streamName(namespace, domain);
    const exists = () =>
      jsm.streams.info(name).then(
        () => true,
        () => false,
      );
    if (await exists()) return name;
    try {
      await jsm.streams.add({
        name,
        subjects: [qualify(`${domain}.>`)],
        storage: StorageType.File,
        duplicate_window: nanos(duplicateWindowMs),
        max_age: nanos(streamMaxAgeMs),
        num_replicas: streamReplicas,
      });
    } catch (error) {
      // Another instance may have created it in between.
      if (!(await exists())) throw error;
    }
    return name;
  }

  /** Creates the durable consumer, or updates the settings a redeploy may have changed. */
  async function upsertConsumer(stream: string, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
    try {
      await jsm.consumers.add(stream, config);
    } catch (error) {
      const existing = await jsm.consumers.info(stream, config.durable_name).catch(() => undefined);
      if (!existing) throw error;
      await jsm.consumers.update(stream, config.durable_name, { max_deliver: config.max_deliver, ack_wait: config.ack_wait });
    }
  }

  /** The subject as published: without the namespace. */
  const unqualify = (subject: string): string => (namespace && subject.startsWith(`${namespace}.`) ? subject.slice(namespace.length + 1) : subject);

  async function handle(message: JsMsg, subscriber: Subscriber): Promise<void> {
    const { consumer, pattern, deadLetter } = subscriber;
    const body = new TextDecoder().decode(message.data);
    let event: BusEvent;
    try {
      const envelope = JSON.parse(body) as Envelope;
      event = Object.assign(envelope, { attempt: message.info.deliveryCount });
      const trace = message.headers?.get('traceparent');
      if (trace) event.trace = trace;
    } catch (error) {
      // Redelivery cannot fix it: kept as received, so a fixed publisher's data can be looked at.
      const letter = {
        id: message.headers?.get('Nats-Msg-Id') || `seq-${message.seq}`,
        subject: unqualify(message.subject),
        time: new Date(message.info.timestampNanos / 1e6).toISOString(),
        payload: body,
        consumer,
        pattern,
        error: `undecodable event: ${errorMessage(error)}`,
        attempts: message.info.deliveryCount,
        failedAt: new Date().toISOString(),
      };
      await giveUp(logger, deadLetter, letter, 'undecodable', error);
      message.term();
      return;
    }
    // Asked once it decoded: an undecodable message still goes to the dead letters of whoever reads its subject.
    if (subscriber.wants && !subscriber.wants(event.subject)) {
      ackAtTurnEnd(message);
      return;
    }
    if (event.attempt > 1) busMetrics.redelivered(event.subject);
    try {
      await subscriber.handler(event);
      ackAtTurnEnd(message);
    } catch (error) {
      if (event.attempt >= subscriber.maxDeliver) {
        const letter = {
          id: event.id,
          subject: event.subject,
          time: event.time,
          payload: JSON.stringify(event.data) ?? '',
          consumer,
          pattern,
          error: errorMessage(error),
          attempts: event.attempt,
          failedAt: new Date().toISOString(),
        };
        await giveUp(logger, deadLetter, letter, 'last-delivery', error);
        message.term();
      } else {
        logger.warn({ err: error, subject: event.subject, id: event.id, attempt: event.attempt }, 'bus: handler failed, event will be redelivered');
        message.nak(subscriber.retryDelayMs);
      }
    }
  }

  /** One message at a time, in stream order: that is the per-subject order guarantee. */
  /** Handles the messages of one subscription, `inFlight` at a time (one: in order). */
  async function consumeLoop(messages: ConsumerMessages, stopping: () => boolean, handle: (message: JsMsg) => Promise<void>, inFlight: number): Promise<void> {
    const running = new Set<Promise<void>>();
    try {
      for await (const message of messages) {
        // Hand messages pulled ahead back at once (it counts as a delivery), so a replica need not wait for ackWaitMs.
        if (stopping()) {
          message.nak();
          continue;
        }
        const work = handle(message)
          .catch((error: unknown) => logger.error({ err: error, subject: message.subject }, 'bus: message not handled'))
          .finally(() => running.delete(work));
        running.add(work);
        if (running.size >= inFlight) await Promise.race(running);
      }
    } catch (error) {
      logger.error({ err: error }, 'bus: consumer stopped');
    }
    await Promise.all(running);
  }

  async function answer(message: Msg, handler: ReplyHandler): Promise<void> {
    let payload: Uint8Array;
    try {
      payload = encodeJson({ ok: true, data: await handler(decodeJson(message.data)) } satisfies ReplyEnvelope);
    } catch (error) {
      logger.debug({ err: error, subject: message.subject }, 'bus: responder failed');
      payload = encodeJson({ ok: false, error: { message: errorMessage(error), code: errorCode(error) } } satisfies ReplyEnvelope);
    }
    message.respond(payload);
  }

  return {
    async publish(subject: string, data: unknown, publishOptions?: PublishOptions): Promise<BusEvent> {
      assertOpen();
      await ensureStream(eventDomain(subject, false));
      const envelope: Envelope = { id: publishOptions?.id ?? randomUUID(), subject, time: new Date().toISOString(), data };
      // The trace context travels as a header (W3C traceparent), beside the envelope, as on any traced message.
      const trace = publishOptions?.trace;
      const traceHeaders = trace ? natsHeaders() : undefined;
      traceHeaders?.set('traceparent', trace!);
      await publishAtTurnEnd(qualify(subject), encodeJson(envelope), { msgID: envelope.id, ...(traceHeaders ? { headers: traceHeaders } : {}) });
      busMetrics.published(subject);
      return Object.assign({}, envelope, { attempt: 1 });
    },

    async subscribe(subject: string, handler: EventHandler, subscribeOptions: SubscribeOptions): Promise<Subscription> {
      assertOpen();
      const stream = await ensureStream(eventDomain(subject, true));
      const maxDeliver = subscribeOptions.maxDeliver ?? 5;
      const retryDelayMs = subscribeOptions.retryDelayMs ?? 1000;
      const { durable } = subscribeOptions;
      const name = durable ? durableConsumerName(durable, subject) : `${safeName(subject).slice(0, 120)}_${randomUUID()}`;
      const config: Partial<ConsumerConfig> = {
        ack_policy: AckPolicy.Explicit,
        filter_subject: qualify(subject),
        max_deliver: maxDeliver,
        ack_wait: nanos(ackWaitMs),
      };
      if (durable) {
        await upsertConsumer(stream, Object.assign({}, config, { durable_name: name, deliver_policy: DeliverPolicy.All }));
      } else {
        await jsm.consumers.add(stream, Object.assign({}, config, { name, deliver_policy: DeliverPolicy.New, inactive_threshold: nanos(ephemeralIdleMs) }));
      }
      const inFlight = Math.max(1, subscribeOptions.inFlight ?? 1);
      const messages = await (await js.consumers.get(stream, name)).consume({ max_messages: Math.max(pullBatch, inFlight) });
      let stopping: Promise<void> | undefined;
      const subscriber: Subscriber = {
        handler,
        consumer: durable ?? subject,
        pattern: subject,
        maxDeliver,
        retryDelayMs,
        deadLetter: subscribeOptions.deadLetter,
        wants: subscribeOptions.wants,
      };
      const done = consumeLoop(
        messages,
        () => stopping !== undefined,
        (message) => handle(message, subscriber),
        inFlight,
      );
      const running: RunningConsumer = {
        stop() {
          stopping ??= (async () => {
            await messages.close();
            await done;
            // A per-instance consumer keeps nothing for later; the idle threshold covers a crash.
            if (!durable) await jsm.consumers.delete(stream, name).catch((error: unknown) => logger.warn({ err: error, subject }, 'bus: consumer not deleted'));
          })();
          return stopping;
        },
      };
      consumers.add(running);
      return {
        async unsubscribe() {
          // After close() the connection is gone and close() already stopped everything.
          if (closing) return;
          consumers.delete(running);
          await running.stop();
        },
      };
    },

    async request<T = unknown>(subject: string, data: unknown, requestOptions?: RequestOptions): Promise<T> {
      assertOpen();
      if (!connected) throw new BusRequestError(`the bus is disconnected; ${subject} not requested`, subject, 'disconnected');
      const timeoutMs = requestOptions?.timeoutMs ?? 5000;
      let response: Msg;
      try {
        response = await nc.request(rpcSubject(subject), encodeJson(data), { timeout: timeoutMs });
      } catch (error) {
        const code = errorCode(error);
        if (code === ErrorCode.NoResponders) throw new BusRequestError(`no responder for ${subject}`, subject, 'no-responder');
        if (code === ErrorCode.Timeout) throw new BusRequestError(`no reply to ${subject} within ${timeoutMs} ms`, subject, 'timeout');
        throw error;
      }
      const reply = decodeJson(response.data) as ReplyEnvelope;
      if (!reply.ok) throw new BusRequestError(reply.error.message, subject, 'remote-error', reply.error.code);
      return reply.data as T;
    },

    async reply(subject: string, handler: ReplyHandler): Promise<Subscription> {
      assertOpen();
      const subscription = nc.subscribe(rpcSubject(subject), {
        queue: responderQueue,
        callback: (error, message) => {
          if (error) {
            logger.error({ err: error, subject }, 'bus: responder subscription failed');
            return;
          }
          const work = answer(message, handler).catch((failure: unknown) => logger.error({ err: failure, subject }, 'bus: reply not sent'));
          replies.add(work);
          void work.finally(() => replies.delete(work));
        },
      });
      responders.add(subscription);
      // Requests from other connections only find this responder once the server knows it.
      await nc.flush();
      return {
        async unsubscribe() {
          if (closing) return;
          responders.delete(subscription);
          await subscription.drain();
        },
      };
    },

    close(): Promise<void> {
      closing ??= (async () => {
        await Promise.all([...consumers].map((consumer) => consumer.stop()));
        await Promise.all([...responders].map((subscription) => subscription.drain()));
        await Promise.allSettled([...replies]);
        sendTurn();
        await Promise.allSettled([...publishing]);
        await nc.drain();
      })();
      return closing;
    },
  };
}

/** Logs connection trouble and tells `onChange` whether the connection is up. */
async function watchConnection(nc: NatsConnection, logger: Logger, onChange: (connected: boolean) => void): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === Events.Disconnect) onChange(false);
    else if (status.type === Events.Reconnect) onChange(true);
    if (status.type === Events.Disconnect || status.type === Events.Error)
      logger.warn({ status: status.type, data: status.data }, 'bus: NATS connection trouble');
    else if (status.type === Events.Reconnect) logger.info({ data: status.data }, 'bus: NATS reconnected');
  }
}

/** Stream names may not contain `.`, `*`, `>` or spaces. */
function streamName(namespace: string | undefined, domain: string): string {
  return (namespace ? `${namespace}_${domain}` : domain).toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
}

/**
 * A consumer per (durable, subject): a service subscribing several subjects under its own name
 * gets one consumer each instead of one whose filter each subscribe would overwrite. The digest
 * keeps names distinct where sanitising would merge them.
 */
function durableConsumerName(durable: string, subject: string): string {
  const digest = createHash('sha256').update(`${durable}\n${subject}`).digest('hex').slice(0, 10);
  return `${safeName(durable).slice(0, 64)}_${safeName(subject).slice(0, 120)}_${digest}`;
}

/** Consumer names may not contain `.`, `*`, `>` or spaces. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

function encodeJson(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value) ?? '');
}

function decodeJson(bytes: Uint8Array): unknown {
  return bytes.length === 0 ? undefined : JSON.parse(new TextDecoder().decode(bytes));
}
