// OpenTelemetry traces in the distributed topology: every service its own process, exporting to a
// loopback OTLP/HTTP collector (this test's HTTP server). One relayed chat through the gateway is
// one trace: the gateway's server span, its proxy call, the relay's server span, the relay's GenAI
// span with the upstream call under it, and the billing consumer's transaction that applied the
// request's usage record (context carried in the NATS message's headers). No span carries the
// prompt, the answer, the client's key or the channel's key.
import crypto from 'node:crypto';
import { createTestEnvironment, startOtlpCollector, waitFor, type CollectedSpan, type OtlpCollector, type TestEnvironment } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import type { Cluster } from '../../../tools/cluster/cluster.mjs';
import { Client, startTestCluster } from './support/cluster-client';

jest.setTimeout(120_000);

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;
const rootPassword = 'root-pass-1234';
const PROMPT = 'a secret prompt about lighthouses';
const CHANNEL_KEY = 'mk-channel-secret-key';

let environment: TestEnvironment | undefined;
let cluster: Cluster | undefined;
let mock: MockUpstream | undefined;
let collector: OtlpCollector | undefined;
const logs: string[] = [];

beforeAll(async () => {
  environment = await createTestEnvironment('real');
  collector = await startOtlpCollector();
  mock = await startMockUpstream({});
  cluster = await startTestCluster(
    environment,
    {
      INTERNAL_SECRET: crypto.randomBytes(32).toString('base64url'),
      INITIAL_ROOT_PASSWORD: rootPassword,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      // Exported within 200 ms of ending, not the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    logs,
  );
});

afterAll(async () => {
  await cluster?.stop();
  await mock?.close();
  await collector?.close();
  await environment?.cleanup();
});

test('one relayed chat is one trace: gateway, relay, upstream and the billing transaction', async () => {
  const admin = new Client(cluster!.gatewayUrl);
  expect(await admin.login('root', rootPassword)).toMatchObject({ success: true });
  for (const [key, value] of [
    ['AllowPrivateNetworkUpstreams', 'true'],
    ['ModelRatio', '{"mock-*":1}'],
  ]) {
    expect((await admin.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
  }
  const channel = await admin.call('POST', '/api/channel/', {
    type: 1,
    name: 'mock',
    key: CHANNEL_KEY,
    base_url: mock!.url,
    models: 'mock-gpt',
    group: 'default',
    allow_private_network: true,
  });
  expect(channel.body).toMatchObject({ success: true });
  const token = await admin.call('POST', '/api/token/', { name: 'traced', unlimited_quota: true });
  const key = String(token.body.data[0].key);

  let requestId = '';
  await waitFor(
    async () => {
      const answer = await fetch(`${cluster!.gatewayUrl}/v1/chat/completions?key=${key}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: PROMPT }] }),
      });
      await answer.text();
      requestId = answer.headers.get('x-oneapi-request-id') ?? '';
      return answer.status === 200;
    },
    15_000,
    'relay routes mock-gpt',
  );

  const spans = collector!.spans;
  const genAi = () => spans.find((span) => span.attribute['aigw.request.id'] === requestId);
  const inTrace = () => spans.filter((span) => span.traceId === genAi()?.traceId);
  // Each process exports its spans in its own batches, in no order between them: wait for every one asserted on.
  const has = (service: string, kind: number) => inTrace().some((span) => span.service === service && span.kind === kind);
  await waitFor(
    () =>
      has('aigw-gateway', SERVER) &&
      has('aigw-gateway', CLIENT) &&
      has('aigw-relay', SERVER) &&
      inTrace().some((span) => span.service === 'aigw-billing' && span.kind === CONSUMER && span.name.includes('relay.usage.recorded')) &&
      inTrace().some((span) => span.service === 'aigw-billing' && span.name === 'billing usage batch') &&
      inTrace().some((span) => span.service === 'aigw-billing' && String(span.attribute['db.query.text']).includes('INSERT INTO')),
    20_000,
    "the gateway's and the relay's spans, the billing consumer's and batch's spans and its statements in the chat's trace",
  );
  const relaySpan = genAi()!;
  const trace = inTrace();
  const byId = new Map(trace.map((span) => [span.spanId, span]));
  const parentOf = (span: CollectedSpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined);

  // The GenAI span: the conventions' attributes, the channel, the usage.
  expect(relaySpan).toMatchObject({ service: 'aigw-relay', kind: CLIENT, name: 'chat mock-gpt' });
  expect(relaySpan.attribute).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'mock-gpt',
    'aigw.channel.id': channel.body.data?.id ?? expect.any(Number),
  });
  expect(relaySpan.attribute['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
  expect(relaySpan.attribute['gen_ai.usage.output_tokens']).toBeGreaterThan(0);

  // gateway server -> gateway proxy client -> relay server -> GenAI span -> upstream client.
  const relayServer = parentOf(relaySpan)!;
  expect(relayServer).toMatchObject({ service: 'aigw-relay', kind: SERVER });
  const proxyCall = parentOf(relayServer)!;
  expect(proxyCall).toMatchObject({ service: 'aigw-gateway', kind: CLIENT });
  const gatewayServer = parentOf(proxyCall)!;
  expect(gatewayServer).toMatchObject({ service: 'aigw-gateway', kind: SERVER });
  expect(gatewayServer.parentSpanId ?? '').toBe('');
  const upstreamCall = trace.find((span) => span.parentSpanId === relaySpan.spanId && span.kind === CLIENT);
  expect(upstreamCall).toMatchObject({ service: 'aigw-relay' });
  expect(String(upstreamCall!.attribute['url.full'])).toBe(`${mock!.url}/v1/chat/completions`);

  // Billing: the consumer's span, and the batch transaction's statements on PostgreSQL under it.
  const consumed = trace.find((span) => span.service === 'aigw-billing' && span.kind === CONSUMER && span.name.includes('relay.usage.recorded'))!;
  const statements = trace.filter((span) => span.service === 'aigw-billing' && span.attribute['db.system.name'] === 'postgresql');
  expect(statements.length).toBeGreaterThan(0);
  expect(statements.some((span) => String(span.attribute['db.query.text']).includes('INSERT INTO'))).toBe(true);
  const underConsumer = (span: CollectedSpan): boolean => span.parentSpanId === consumed.spanId || (parentOf(span) ? underConsumer(parentOf(span)!) : false);
  expect(statements.every(underConsumer)).toBe(true);

  // Nothing secret in anything exported: not the prompt, not the client's key (even from ?key=), not the channel's key.
  // The query keeps its parameters' names only.
  expect(trace.filter((span) => span.kind === SERVER).map((span) => span.attribute['url.query'])).toEqual(['key=', 'key=']);
  const exported = collector!.bodies.join('\n');
  expect(exported).not.toContain(PROMPT);
  expect(exported).not.toContain(key.slice(3));
  expect(exported).not.toContain(CHANNEL_KEY);
});
