// Request bodies are capped by route class before they are read (issue 22 item 2, test D1):
// anonymous console routes 64 KiB, signed-in console routes 1 MiB, the relay by operation. Both
// topologies: all-in-one (Fastify's per-route limit from the declared access) and the distributed
// gateway, whose proxy refuses an oversized body before forwarding a byte of it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyLimits, createSilentLogger, replyTyped, type App, type Subscription } from '@aigw/platform';
import { createTestEnvironment, type TestEnvironment } from '@aigw/platform/testing';
import { buildGateway } from '../src/app';
import { gatewayConfigSchema } from '../src/config';
import { ROOT_PASSWORD, startGateway, type TestGateway } from './support/gateway';
import { sendRaw } from './support/raw-http';

const KiB = 1024;
const MiB = 1024 * KiB;
const tooLarge = { success: false, message: 'request body is too large' };
/** A console that names no language reads the gateway's refusals in Chinese. */
const tooLargeInChinese = { success: false, message: '请求体过大' };

/** A chunked body's first chunk of `size` bytes, the end never sent. */
const openChunk = (size: number) => `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`;

describe('body caps by route class (all-in-one)', () => {
  let gateway: TestGateway;
  let port: number;

  beforeAll(async () => {
    gateway = await startGateway('in-process');
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers an anonymous route 413 from the announced length, before reading the body', async () => {
    for (const path of ['/api/user/login', '/api/user/register', '/api/user/reset']) {
      const headers = { 'content-type': 'application/json', 'content-length': String(5 * MiB), 'accept-language': 'en-US' };
      const answer = await sendRaw(port, { method: 'POST', path, headers });
      expect({ path, status: answer.status, body: JSON.parse(answer.body) }).toEqual({ path, status: 413, body: tooLarge });
    }
    const unnamed = await sendRaw(port, {
      method: 'POST',
      path: '/api/user/login',
      headers: { 'content-type': 'application/json', 'content-length': String(5 * MiB) },
    });
    expect(JSON.parse(unnamed.body)).toEqual(tooLargeInChinese);
  });

  it('answers an unknown API path 404 before reading its body', async () => {
    const answer = await sendRaw(port, {
      method: 'POST',
      path: '/api/nothing-here',
      headers: { 'content-type': 'application/json', 'content-length': String(5 * MiB), 'accept-language': 'en-US' },
    });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ success: false, message: 'Invalid URL (POST /api/nothing-here)' });
    const inChinese = await sendRaw(port, {
      method: 'POST',
      path: '/api/nothing-here',
      headers: { 'content-type': 'application/json', 'content-length': String(5 * MiB), 'accept-language': 'zh-CN' },
    });
    expect(JSON.parse(inChinese.body)).toEqual({ success: false, message: '无效的网址（POST /api/nothing-here）' });
  });

  it('answers a chunked anonymous body 413 as soon as it passes 64 KiB', async () => {
    const answer = await sendRaw(port, {
      method: 'POST',
      path: '/api/user/login',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: openChunk(bodyLimits.anonymous + KiB),
    });
    expect(answer.status).toBe(413);
  });

  it('refuses a padded registration of 100 KiB and writes nothing', async () => {
    const padded = await gateway.call('POST', '/api/user/register', {
      body: { username: 'padded', password: 'padded-pass', password2: 'padded-pass', pad: 'x'.repeat(100 * KiB) },
    });
    expect(padded.statusCode).toBe(413);
    expect(padded.json()).toEqual(tooLarge);
    expect((await gateway.call('POST', '/api/user/login', { body: { username: 'padded', password: 'padded-pass' } })).json().success).toBe(false);
    // Under the cap the same form is served.
    const small = await gateway.call('POST', '/api/user/register', {
      body: { username: 'padded', password: 'padded-pass', password2: 'padded-pass', pad: 'x'.repeat(10 * KiB) },
    });
    expect(small.json()).toEqual({ success: true, message: '' });
  });

  it('caps a signed-in console route at 1 MiB', async () => {
    const root = await gateway.login('root', ROOT_PASSWORD);
    const big = await gateway.call('PUT', '/api/user/self', { session: root, body: { display_name: 'Root', pad: 'x'.repeat(bodyLimits.console) } });
    expect(big.statusCode).toBe(413);
    const fine = await gateway.call('PUT', '/api/user/self', { session: root, body: { display_name: 'Root', pad: 'x'.repeat(200 * KiB) } });
    expect(fine.json()).toEqual({ success: true, message: '' });
  });
});

/** One stand-in for every service: records what reaches it, answers a success envelope. */
interface FakeService {
  url: string;
  received: Array<{ method: string; url: string; bytes: number }>;
  close(): Promise<void>;
}

async function startFakeService(): Promise<FakeService> {
  const received: FakeService['received'] = [];
  const server = http.createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, bytes });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ success: true, message: '' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('body caps by route class (distributed gateway proxy)', () => {
  let environment: TestEnvironment;
  let service: FakeService;
  let gateway: App;
  let resolver: Subscription;
  let port: number;
  const session = { cookie: 'session=signed-in-cookie', 'new-api-user': '7' };

  beforeAll(async () => {
    environment = await createTestEnvironment('in-process');
    service = await startFakeService();
    // The gateway resolves the cookie through identity over the bus: answer as identity would.
    resolver = await replyTyped(environment.infra.bus, 'identity.auth.resolve', async ({ secret }) => ({
      principal:
        secret === 'signed-in-cookie' ? { user_id: 7, username: 'alice', role: 1, status: 1, group: 'default', password_change_required: false } : null,
    }));
    const config = gatewayConfigSchema.parse({
      DATA_DIR: environment.dataDir,
      NAMESPACE: environment.namespace,
      INTERNAL_SECRET: 'i'.repeat(32),
      IDENTITY_URL: service.url,
      BILLING_URL: service.url,
      CHANNELS_URL: service.url,
      RELAY_URL: service.url,
      NOTIFIER_URL: service.url,
      GLOBAL_API_RATE_LIMIT: '0',
      CRITICAL_RATE_LIMIT: '0',
    });
    gateway = await buildGateway({ config, logger: createSilentLogger(), infra: environment.infra, version: 'test' });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    port = (gateway.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await gateway?.close();
    await resolver?.unsubscribe();
    await service?.close();
    await environment?.cleanup();
  });

  const forwarded = (path: string) => service.received.filter((entry) => entry.url.startsWith(path));
  const post = (path: string, bytes: number, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ pad: 'x'.repeat(bytes) }),
    });

  it('refuses an anonymous body over 64 KiB by its length, before forwarding anything', async () => {
    const answer = await sendRaw(port, {
      method: 'POST',
      path: '/api/user/login',
      headers: { 'content-type': 'application/json', 'content-length': String(5 * MiB) },
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(tooLargeInChinese);
    expect(forwarded('/api/user/login')).toEqual([]);
  });

  it('refuses a chunked anonymous body once it passes 64 KiB, before forwarding anything', async () => {
    const answer = await sendRaw(port, {
      method: 'POST',
      path: '/api/user/register',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: openChunk(bodyLimits.anonymous + KiB),
    });
    expect(answer.status).toBe(413);
    expect(forwarded('/api/user/register')).toEqual([]);
  });

  it('forwards an anonymous body under the cap whole', async () => {
    const answer = await post('/api/user/reset', 10 * KiB);
    expect(answer.status).toBe(200);
    expect(forwarded('/api/user/reset')).toEqual([{ method: 'POST', url: '/api/user/reset', bytes: 10 * KiB + 10 }]);
  });

  it('lets a signed-in caller send up to 1 MiB to the console API', async () => {
    expect((await post('/api/token/', 200 * KiB, session)).status).toBe(200);
    expect(forwarded('/api/token/')).toHaveLength(1);
    expect((await post('/api/channel/', bodyLimits.console, session)).status).toBe(413);
    expect(forwarded('/api/channel/')).toEqual([]);
  });

  it('gives payment notifies their own cap, and streams relay bodies to the relay', async () => {
    expect((await post('/api/user/epay/notify', 200 * KiB)).status).toBe(200);
    expect(forwarded('/api/user/epay/notify')).toHaveLength(1);
    // The relay checks the key before reading and caps by operation itself.
    expect((await post('/v1/chat/completions', 2 * MiB, { authorization: 'Bearer sk-anything' })).status).toBe(200);
    expect(forwarded('/v1/chat/completions')).toEqual([{ method: 'POST', url: '/v1/chat/completions', bytes: 2 * MiB + 10 }]);
  });
});
