import http from 'node:http';
import type { AddressInfo } from 'node:net';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttributes = Array<{ key: string; value: OtlpValue }>;

/** A span as an OTLP/HTTP JSON export carries it, with its service's name and its attributes as a map. */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attribute: Record<string, string | number | boolean | undefined>;
  links: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}

export interface OtlpCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  endpoint: string;
  spans: CollectedSpan[];
  /** Every export's body as received, to search for what must never be exported. */
  bodies: string[];
  close(): Promise<void>;
}

const valueOf = (value: OtlpValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
const mapOf = (attributes: OtlpAttributes | undefined) => Object.fromEntries((attributes ?? []).map((entry) => [entry.key, valueOf(entry.value)]));

/** A loopback OpenTelemetry collector (OTLP/HTTP with JSON bodies, as @opentelemetry/exporter-trace-otlp-http sends) for tests. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      if (request.url !== '/v1/traces') return void response.writeHead(404).end();
      const payload = JSON.parse(text) as {
        resourceSpans: Array<{
          resource: { attributes: OtlpAttributes };
          scopeSpans: Array<{
            spans: Array<Omit<CollectedSpan, 'service' | 'attribute' | 'links'> & { attributes?: OtlpAttributes; links?: CollectedSpan['links'] }>;
          }>;
        }>;
      };
      for (const resource of payload.resourceSpans) {
        const service = String(mapOf(resource.resource.attributes)['service.name']);
        for (const scope of resource.scopeSpans) {
          for (const { attributes, links, ...span } of scope.spans) spans.push({ ...span, service, attribute: mapOf(attributes), links: links ?? [] });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
