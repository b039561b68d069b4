// A key the relay has never seen, while billing or NATS is away (real backend: NATS + Redis). The
// key can be neither accepted nor refused: 503 with Retry-After in the caller's shape, at once
// rather than after the bus timeout, and never a 500.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp, createInfrastructure, createSilentLogger, replyTyped, type App, type Infrastructure, type Subscription } from '@aigw/platform';
import { removeNamespace, startTcpProxy, testServices, uniqueName, waitFor, type TcpProxy, type TestServices } from '@aigw/platform/testing';
import relayPlugin from '../src/plugin';

jest.setTimeout(60_000);

/** A well-formed key nobody has seen (unknown keys are remembered, so every call gets its own). */
const freshKey = () => `sk-${crypto.randomBytes(36).toString('base64url').replace(/[-_]/g, 'a').slice(0, 48)}`;

describe('a never-cached key while billing or NATS is away', () => {
  let services: TestServices;
  let nats: TcpProxy;
  let infra: Infrastructure;
  let app: App;
  const namespace = uniqueName('t').toLowerCase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-test-'));
  const stubs: Subscription[] = [];

  beforeAll(async () => {
    services = await testServices();
    const server = new URL(services.natsUrl);
    nats = await startTcpProxy({ host: server.hostname, port: Number(server.port) || 4222 });
    infra = await createInfrastructure({ NAMESPACE: namespace, NATS_URL: nats.via(services.natsUrl), REDIS_URL: services.redisUrl }, createSilentLogger());
    // What the relay asks for at start (identity and channels are not part of this test).
    stubs.push(await replyTyped(infra.bus, 'identity.option.snapshot', async () => ({ options: [] })));
    stubs.push(await replyTyped(infra.bus, 'channels.routing.snapshot', async () => ({ channels: [] })));
    app = createApp({ logger: createSilentLogger(), bodyLimitBytes: 1024 * 1024 });
    await app.register(relayPlugin, { infra, databaseUrl: services.databaseUrl, dataDir, schema: `${namespace}_relay` });
    await app.ready();
  });
  afterAll(async () => {
    await nats?.restore();
    await app?.close();
    await Promise.all(stubs.map((stub) => stub.unsubscribe()));
    await infra?.close();
    await nats?.close();
    if (services) await removeNamespace(services, namespace);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const chat = (key: string, path = '/v1/chat/completions') =>
    app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${key}` },
      payload: { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    });
  const timed = async <T>(call: () => Promise<T>) => {
    const started = Date.now();
    const result = await call();
    return { result, ms: Date.now() - started };
  };

  it('answers 503 with Retry-After in the OpenAI and Anthropic shapes when billing does not answer', async () => {
    const { result: openai, ms } = await timed(() => chat(freshKey()));
    expect(openai.statusCode).toBe(503);
    expect(ms).toBeLessThan(1_000);
    expect(openai.headers['retry-after']).toBe('2');
    expect(openai.json()).toEqual({
      error: {
        message: `the service is briefly unavailable, try again shortly (request id: ${openai.headers['x-oneapi-request-id'] as string})`,
        type: 'new_api_error',
        param: '',
        code: 'billing_unavailable',
      },
    });
    const anthropic = await chat(freshKey(), '/v1/messages');
    expect(anthropic.statusCode).toBe(503);
    expect(anthropic.headers['retry-after']).toBe('2');
    expect(anthropic.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining('briefly unavailable') } });
  });

  it('answers 503 at once, not after the bus timeout, while NATS is away; keys are checked again once it is back', async () => {
    // A billing stand-in that knows no key: with the bus up, a fresh key is refused (401).
    stubs.push(await replyTyped(infra.bus, 'billing.token.resolve', async () => ({ token: null })));
    expect((await chat(freshKey())).statusCode).toBe(401);

    await nats.cut();
    // The first calls may still race the client noticing the lost connection.
    await waitFor(
      async () => {
        const { result, ms } = await timed(() => chat(freshKey()));
        return result.statusCode === 503 && ms < 1_000;
      },
      10_000,
      'a quick 503 while NATS is away',
    );
    const { result, ms } = await timed(() => chat(freshKey()));
    expect(result.statusCode).toBe(503);
    expect(ms).toBeLessThan(1_000);
    expect(result.headers['retry-after']).toBe('2');
    expect(result.json()).toMatchObject({ error: { code: 'billing_unavailable' } });

    await nats.restore();
    await waitFor(async () => (await chat(freshKey())).statusCode === 401, 20_000, 'keys checked again after NATS is back');
  });
});
