import { createRequire } from 'node:module';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';

export type { Attributes, Span } from '@opentelemetry/api';

/**
 * OpenTelemetry traces (docs/architecture.md section 12), off unless OTEL_EXPORTER_OTLP_ENDPOINT
 * is set. This module is light: the SDK and its instrumentations are loaded only when tracing
 * starts. It must start before the modules it instruments are loaded (fastify's `http`, pg,
 * ioredis are patched as they are required), so each service's main.ts imports its `tracing.js`
 * first, which calls `startTracing` synchronously: an ES module's top-level await would let the
 * next import run before the patches are in.
 *
 * What is traced: HTTP in and out (node:http server spans, undici client spans carrying W3C
 * `traceparent` to the next hop), PostgreSQL statements, Redis commands, and the bus (trace
 * context in the message headers, bus.ts `PublishOptions.trace`). The relay adds a GenAI span per
 * upstream call. No span carries a query string, a header value, a prompt, an answer or a key.
 */

const require = createRequire(import.meta.url);

type Api = typeof import('@opentelemetry/api');
/**
 * The API instance the SDK registered with, required beside it: one instance, whatever loaded
 * this module (a test runner's own module registry included). Set while tracing is on.
 */
let api: Api | null = null;
let tracer: Tracer | null = null;

/** SpanKind's values, by name. */
const kinds = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const;
/** SpanStatusCode.ERROR. */
const ERROR = 2;
let provider: { shutdown(): Promise<void>; forceFlush(): Promise<void> } | null = null;

/** Query parameters are where clients put keys (`?key=` on Gemini's API): url attributes keep their names only. */
const urlAttributes = ['url.full', 'http.url', 'http.target'];

function stripQueries(span: { attributes: Record<string, unknown>; setAttribute(name: string, value: string): unknown }): void {
  for (const name of urlAttributes) {
    const value = span.attributes[name];
    if (typeof value === 'string' && value.includes('?')) span.setAttribute(name, value.slice(0, value.indexOf('?')));
  }
  const query = span.attributes['url.query'];
  if (typeof query === 'string' && query.includes('=')) span.setAttribute('url.query', query.replace(/=[^&]*/g, '='));
}

/** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT's /v1/traces (the OTLP/HTTP convention). */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`;
}

/** Started for this process (OTEL_EXPORTER_OTLP_ENDPOINT set). */
export function tracingEnabled(): boolean {
  return tracer !== null;
}

/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over HTTP with JSON bodies; the
 * exporter also reads OTEL_EXPORTER_OTLP_HEADERS and the other standard variables itself); does
 * nothing otherwise. Synchronous on purpose (see above).
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): void {
  if (tracer || !env.OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } = require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');

  const sdk = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || `aigw-${service}`, 'service.namespace': 'aigw' }),
    spanProcessors: [
      {
        // As the span ends, before any exporter sees it: no query string in any url attribute
        // (the instrumentations may set them at any time until then, so once, at the end).
        onStart: () => {},
        onEnding: stripQueries,
        onEnd: () => {},
        forceFlush: async () => {},
        shutdown: async () => {},
      },
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(env) }), {
        ...(env.OTEL_BSP_SCHEDULE_DELAY ? { scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) } : {}),
      }),
    ],
  });
  // The W3C trace context propagator and an AsyncLocalStorage context manager: tracing's cost, paid only when it is on.
  sdk.register();
  const probes = new Set(['/healthz', '/readyz', '/metrics']);
  registerInstrumentations({
    tracerProvider: sdk,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => probes.has((request.url ?? '').split('?', 1)[0]!) }),
      new UndiciInstrumentation(),
      // Statements without their parameters (values may be keys or balances).
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  provider = sdk;
  api = require('@opentelemetry/api') as Api;
  tracer = api.trace.getTracer('aigw');
}

/** Exports what is buffered and stops (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  const running = provider;
  provider = null;
  tracer = null;
  api = null;
  await running?.shutdown();
}

/** The tracer when tracing is on (callers skip all span work otherwise). */
export function activeTracer(): Tracer | null {
  return tracer;
}

/**
 * Runs `work` in a new active span (ended when it settles, failed when it throws); just `work`
 * when tracing is off. `parent`: the traceparent it continues (a message's), else the active
 * span; `links`: other traces it serves (the rest of a batch).
 */
export async function inSpan<T>(
  name: string,
  kind: keyof typeof kinds,
  attributes: Attributes,
  work: () => Promise<T>,
  parent?: string,
  links: ReadonlyArray<string | undefined> = [],
): Promise<T> {
  if (!tracer || !api) return work();
  const { trace } = api;
  const linked = links.flatMap((traceparent) => {
    const spanContext = traceparent ? trace.getSpanContext(contextOf(traceparent)) : undefined;
    return spanContext ? [{ context: spanContext }] : [];
  });
  return tracer.startActiveSpan(name, { kind: kinds[kind], attributes, links: linked }, contextOf(parent), async (span) => {
    try {
      return await work();
    } catch (error) {
      failSpan(span, error instanceof Error ? error.name : 'error');
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The current trace context as a W3C `traceparent` header value, for a message that leaves the process. */
export function currentTraceparent(from?: Context): string | undefined {
  if (!api) return undefined;
  const carrier: Record<string, string> = {};
  api.propagation.inject(from ?? api.context.active(), carrier);
  return carrier.traceparent;
}

/** The context a received `traceparent` names (the active one when there is none). */
function contextOf(traceparent: string | undefined): Context {
  const { context, propagation } = api!;
  return traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
}

/** The active span's ids, for log lines (empty when tracing is off or no span is active). */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = api?.trace.getSpan(api.context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** A span that is not made active (the caller runs work in it with `runInSpan`), or null when tracing is off. */
export function startSpan(name: string, kind: keyof typeof kinds, attributes: Attributes): Span | null {
  return tracer ? tracer.startSpan(name, { kind: kinds[kind], attributes }) : null;
}

/** Runs `work` with `span` active: spans started inside (HTTP clients, statements) are its children. */
export function runInSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  if (!api) return work();
  return api.context.with(api.trace.setSpan(api.context.active(), span), work);
}

/** The W3C traceparent naming `span`, for a message sent on its behalf. */
export function spanTraceparent(span: Span): string | undefined {
  return api ? currentTraceparent(api.trace.setSpan(api.context.active(), span)) : undefined;
}

/** Marks a span failed: its error type only (a message may quote what the span must not carry). */
export function failSpan(span: Span, errorType: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: ERROR });
}
