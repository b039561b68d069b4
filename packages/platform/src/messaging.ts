import {
  eventSchemas,
  requestSchemas,
  type EventPayload,
  type EventSubject,
  type RequestPayload,
  type RequestSubject,
  type ResponsePayload,
} from '@aigw/contracts';
import type { Bus, BusEvent, PublishOptions, RequestOptions, SubscribeOptions, Subscription } from './bus/bus.js';
import type { Logger } from './logger.js';
import { currentTraceparent, inSpan, tracingEnabled } from './tracing/tracing.js';

/**
 * Typed access to the bus through the contracts' event and request maps: payloads are checked
 * on the way out and validated on the way in (consumers validate before acting).
 */

/**
 * What a service says on the bus, declared once in its events.ts: the events it publishes and
 * consumes, the requests it answers and those it makes. The subjects are keys of the contracts'
 * maps, so a misspelt one does not compile; a test holds each service's code to its declaration.
 */
export interface ServiceMessaging {
  /** Events it publishes, each after the change it reports committed. */
  publishes: readonly EventSubject[];
  /** Events it acts on (each validated before acting). */
  consumes: readonly EventSubject[];
  /** Events it passes on without acting on them (the notifier's webhooks to integrators). */
  forwards?: readonly EventSubject[];
  /** Requests it answers. */
  answers: readonly RequestSubject[];
  /** Requests it makes of other services. */
  asks: readonly RequestSubject[];
}

export interface PublishEventOptions extends Omit<PublishOptions, 'id' | 'validated'> {
  /**
   * The payload is what a typed builder of this process made, held to the subject's schema by a
   * test (the relay's usage records), or what was parsed where it entered the process: not parsed
   * again (issue 16: no zod parse of data the process produced itself). The in-process bus hands
   * that very object, frozen, to its consumers: the builder must not share parts the caller keeps changing.
   */
  built?: boolean;
}

export function publishEvent<S extends EventSubject>(
  bus: Bus,
  subject: S,
  payload: EventPayload<S>,
  id?: string,
  options?: PublishEventOptions,
): Promise<BusEvent> {
  // Parsed once, here: a copy of the producer's object with nothing the schema does not name.
  const data = options?.built ? payload : eventSchemas[subject].parse(payload);
  const trace = options?.trace ?? currentTraceparent();
  const published: PublishOptions = { validated: true };
  if (id) published.id = id;
  if (trace) published.trace = trace;
  if (options?.confirmedBy) published.confirmedBy = options.confirmedBy;
  return bus.publish(subject, data, published);
}

/** Subscribes with validation; an invalid payload is logged and acknowledged (redelivery cannot fix it). */
export function onEvent<S extends EventSubject>(
  bus: Bus,
  subject: S,
  handler: (payload: EventPayload<S>, event: BusEvent) => Promise<void>,
  options: SubscribeOptions & { logger: Logger },
): Promise<Subscription> {
  const { logger, ...subscribeOptions } = options;
  const consume = async (event: BusEvent) => {
    // Validated by its publisher in this process (the in-process bus): not parsed again per consumer.
    if (event.validated) return handler(event.data as EventPayload<S>, event);
    const parsed = eventSchemas[subject].safeParse(event.data);
    if (!parsed.success) {
      logger.error({ subject, eventId: event.id, issues: parsed.error.issues }, 'dropped an invalid event');
      return;
    }
    await handler(parsed.data as EventPayload<S>, event);
  };
  // With tracing on, each delivery is a consumer span continuing the publisher's trace.
  const traced = (event: BusEvent) =>
    inSpan(
      `${subject} process`,
      'consumer',
      { 'messaging.destination.name': subject, 'messaging.operation.type': 'process' },
      () => consume(event),
      event.trace,
    );
  return bus.subscribe(subject, tracingEnabled() ? traced : consume, subscribeOptions);
}

export async function requestTyped<S extends RequestSubject>(
  bus: Bus,
  subject: S,
  payload: RequestPayload<S>,
  options?: RequestOptions,
): Promise<ResponsePayload<S>> {
  const response = await bus.request(subject, requestSchemas[subject].request.parse(payload), options);
  return requestSchemas[subject].response.parse(response) as ResponsePayload<S>;
}

export function replyTyped<S extends RequestSubject>(
  bus: Bus,
  subject: S,
  handler: (payload: RequestPayload<S>) => Promise<ResponsePayload<S>>,
): Promise<Subscription> {
  return bus.reply(subject, async (data) => {
    const payload = requestSchemas[subject].request.parse(data) as RequestPayload<S>;
    return requestSchemas[subject].response.parse(await handler(payload));
  });
}
