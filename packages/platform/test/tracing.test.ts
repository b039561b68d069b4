// Tracing in one process against a loopback OTLP collector: off costs nothing and exports nothing;
// on, a bus event's consumer span continues its publisher's trace, a batch span links the traces it
// serves, url attributes lose their query strings, and log lines name the trace. (Instrumentation
// of modules as they load, which jest's own module loader bypasses, is covered by the distributed
// test: services/gateway/test/cluster-tracing.test.ts.)
import { onEvent, publishEvent } from '../src/messaging';
import { createMemoryBus } from '../src/bus/memory-bus';
import { createLogger } from '../src/logger';
import { currentTraceparent, inSpan, startSpan, startTracing, stopTracing, tracingEnabled } from '../src/tracing/tracing';
import { startOtlpCollector, waitFor, type OtlpCollector } from '../src/testing/index';

let collector: OtlpCollector;

beforeAll(async () => {
  collector = await startOtlpCollector();
});

afterAll(async () => {
  await stopTracing();
  await collector.close();
});

test('off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: no spans, no traceparent', async () => {
  startTracing('test', {});
  expect(tracingEnabled()).toBe(false);
  expect(startSpan('nothing', 'internal', {})).toBeNull();
  expect(await inSpan('nothing', 'internal', {}, async () => currentTraceparent())).toBeUndefined();
});

test('on: consumer spans continue the publisher, batches link, urls lose queries, logs name the trace', async () => {
  startTracing('test', { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });
  expect(tracingEnabled()).toBe(true);
  const lines: Array<{ msg: string; trace_id?: string; span_id?: string }> = [];
  const logger = createLogger({ level: 'info', service: 'test' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const bus = createMemoryBus({ logger });
  const consumed: string[] = [];
  await onEvent(
    bus,
    'identity.user.registered',
    async () => {
      logger.info('consumed');
      consumed.push(currentTraceparent()!);
    },
    { durable: 'tracing-test', logger },
  );

  const published = await inSpan(
    'publisher',
    'server',
    { 'url.full': 'http://gw/v1/models?key=sk-secret-in-query', 'url.query': 'key=sk-secret-in-query&alt=sse' },
    async () => {
      await publishEvent(bus, 'identity.user.registered', {
        user_id: 7,
        username: 'traced',
        display_name: 'traced',
        email: '',
        role: 1,
        status: 1,
        group: 'default',
        rate_limits: {},
        inviter_id: 0,
        source: 'register',
      });
      return currentTraceparent()!;
    },
  );
  await waitFor(() => consumed.length === 1);
  const other = await inSpan('other request', 'server', {}, async () => currentTraceparent()!);
  await inSpan('batch', 'internal', { 'aigw.batch.size': 2 }, async () => undefined, published, [other]);
  await waitFor(() => ['publisher', 'identity.user.registered process', 'batch'].every((name) => collector.spans.some((span) => span.name === name)), 10_000);

  const span = (name: string) => collector.spans.find((candidate) => candidate.name === name)!;
  const publisher = span('publisher');
  expect(publisher).toMatchObject({ service: 'aigw-test', kind: 2 });
  expect(publisher.attribute).toMatchObject({ 'url.full': 'http://gw/v1/models', 'url.query': 'key=&alt=' });
  expect(collector.bodies.join('')).not.toContain('sk-secret-in-query');
  // The consumer's span: a child of the publisher's, in its trace.
  const consumer = span('identity.user.registered process');
  expect(consumer).toMatchObject({ traceId: publisher.traceId, parentSpanId: publisher.spanId, kind: 5 });
  expect(published).toContain(publisher.traceId);
  // The batch: under the first trace, linked to the other.
  const batch = span('batch');
  expect(batch.traceId).toBe(publisher.traceId);
  expect(batch.links).toEqual([expect.objectContaining({ traceId: other.split('-')[1] })]);
  // The consumer's log line names its trace and span.
  expect(lines.find((line) => line.msg === 'consumed')).toMatchObject({ trace_id: consumer.traceId, span_id: consumer.spanId });
  await bus.close();
});
