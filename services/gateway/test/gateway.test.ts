import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signIdentity } from '@aigw/platform';
import { createTestEnvironment, waitFor } from '@aigw/platform/testing';
import { owningService } from '../src/route-table';
import { ROOT_PASSWORD, startGateway, type TestGateway } from './support/gateway';

describe('route table', () => {
  it('sends every path to its owner, the most specific prefix winning', () => {
    expect(owningService('/api/user/login')).toBe('identity');
    expect(owningService('/api/user/42')).toBe('identity');
    expect(owningService('/api/user/topup')).toBe('billing');
    expect(owningService('/api/user/aff_transfer')).toBe('billing');
    expect(owningService('/api/user/models?x=1')).toBe('channels');
    expect(owningService('/api/token/')).toBe('billing');
    expect(owningService('/api/channel/test/3')).toBe('channels');
    expect(owningService('/v1/chat/completions')).toBe('relay');
    expect(owningService('/api/mj/self')).toBe('relay');
    expect(owningService('/api/webhook/')).toBe('notifier');
    expect(owningService('/api/job/')).toBe('notifier');
    expect(owningService('/api/dead_letter/billing/')).toBe('billing');
    expect(owningService('/api/dead_letter/relay/3/replay')).toBe('relay');
    expect(owningService('/api/dead_letter/')).toBeUndefined();
    expect(owningService('/api/userx')).toBeUndefined();
    expect(owningService('/login')).toBeUndefined();
  });
});

describe('gateway (all-in-one, in-process)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway('in-process', { BODY_LIMIT_BYTES: String(64 * 1024) });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers oversized bodies with 413 and writes nothing', async () => {
    const response = await gateway.call('POST', '/api/user/register', {
      body: { username: 'big', password: 'big-password', padding: 'x'.repeat(100 * 1024) },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ success: false, message: 'request body is too large' });
    expect((await gateway.call('POST', '/api/user/login', { body: { username: 'big', password: 'big-password' } })).json().success).toBe(false);
  });

  it('sets security headers, no-store on the API, and no CORS for the console API', async () => {
    const response = await gateway.call('GET', '/api/status', { headers: { origin: 'https://evil.example' } });
    expect(response.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store' });
    expect(response.headers['x-oneapi-request-id']).toEqual(expect.any(String));
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await gateway.call('OPTIONS', '/api/user/login', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers CORS preflights on relay paths for any origin', async () => {
    const preflight = await gateway.call('OPTIONS', '/v1/chat/completions', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-headers': 'authorization, content-type' });
  });

  it('answers unknown API paths with JSON 404s in the right shape', async () => {
    const api = await gateway.call('GET', '/api/nothing-here');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ success: false, message: 'Invalid URL (GET /api/nothing-here)' });
    const relay = await gateway.call('POST', '/v1/nothing-here');
    expect(relay.statusCode).toBe(404);
    expect(relay.json()).toEqual({ error: { message: 'Invalid URL (POST /v1/nothing-here)', type: 'invalid_request_error', code: 'not_found' } });
    // The console's language when it names none; relay clients read English unless they ask.
    expect((await gateway.call('GET', '/api/nothing-here', { headers: { 'accept-language': '' } })).json()).toEqual({
      success: false,
      message: '无效的网址（GET /api/nothing-here）',
    });
    expect((await gateway.call('POST', '/v1/nothing-here', { headers: { 'accept-language': '' } })).json().error.message).toBe(
      'Invalid URL (POST /v1/nothing-here)',
    );
  });

  it('serves the placeholder console with a CSP for any other path', async () => {
    const page = await gateway.call('GET', '/some/console/route');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.body).toMatch(/AI Gateway/);
  });

  it('ignores identity headers sent by a client', async () => {
    const forged = signIdentity('x'.repeat(32), 'GET', '/api/user/self', { userId: 1, username: 'root', role: 100, group: 'default' }, '127.0.0.1');
    const response = await gateway.call('GET', '/api/user/self', { headers: { ...forged, 'new-api-user': '1' } });
    expect(response.statusCode).toBe(401);
  });

  it('serves health, and no metrics on the public port', async () => {
    expect((await gateway.call('GET', '/healthz')).json()).toEqual({ status: 'ok' });
    // All-in-one: the schedules of every service, each with its next run.
    const ready = (await gateway.call('GET', '/readyz')).json();
    expect(ready).toEqual({ status: 'ready', schedules: { status: 'ok', schedules: expect.any(Array) } });
    expect(ready.schedules.schedules).toEqual(
      expect.arrayContaining([
        { name: 'relay.holds.sweep', every_ms: expect.any(Number), registered: true, next_run_at: expect.any(String) },
        { name: 'identity.sessions.sweep', every_ms: 3_600_000, registered: true, next_run_at: expect.any(String) },
      ]),
    );
    // Prometheus is served on METRICS_PORT alone (services/relay/test/metrics.test.ts): here /metrics is the console's fallback page.
    const metrics = await gateway.call('GET', '/metrics');
    expect(metrics.headers['content-type']).toMatch(/text\/html/);
    expect(metrics.body).not.toMatch(/aigw_http_requests_total/);
    expect((await gateway.call('GET', '/internal/identity/health')).statusCode).toBe(404);
    expect((await gateway.call('GET', '/internal/billing/health')).json()).toMatchObject({ success: true, data: { status: 'ok' } });
  });

  it('refuses an admin route to an anonymous caller with 401', async () => {
    expect((await gateway.call('GET', '/api/user/')).statusCode).toBe(401);
    const root = await gateway.login('root', ROOT_PASSWORD);
    expect((await gateway.call('GET', '/api/user/', { session: root })).statusCode).toBe(200);
  });
});

describe('gateway console files', () => {
  it('serves web/dist with SPA fallback to index.html', async () => {
    const webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-web-'));
    fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Console</title><div id="root"></div>');
    fs.mkdirSync(path.join(webDir, 'assets'));
    fs.writeFileSync(path.join(webDir, 'assets', 'app.js'), 'console.log(1)');
    const gateway = await startGateway('in-process', { WEB_DIST_DIR: webDir });
    try {
      const asset = await gateway.call('GET', '/assets/app.js');
      expect(asset.statusCode).toBe(200);
      expect(asset.body).toBe('console.log(1)');
      const route = await gateway.call('GET', '/channel');
      expect(route.statusCode).toBe(200);
      expect(route.body).toMatch(/<title>Console<\/title>/);
      expect(route.headers['cache-control']).toBe('no-cache');
      expect((await gateway.call('GET', '/assets/missing.js')).statusCode).toBe(404);
    } finally {
      await gateway.close();
      fs.rmSync(webDir, { recursive: true, force: true });
    }
  });
});

describe.each(['in-process', 'real'] as const)('rate limits (%s)', (backend) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway(backend, { CRITICAL_RATE_LIMIT: '3', GLOBAL_API_RATE_LIMIT: '8' });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('limits login attempts per IP, then the whole API', async () => {
    const attempt = () => gateway.call('POST', '/api/user/login', { body: { username: 'root', password: 'wrong-password' } });
    for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(200);
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ success: false, message: 'too many requests, try again later' });
    let status = 200;
    for (let i = 0; i < 10 && status === 200; i++) status = (await gateway.call('GET', '/api/status')).statusCode;
    expect(status).toBe(429);
    expect((await gateway.call('GET', '/api/status', { headers: { 'accept-language': 'zh-CN' } })).json()).toEqual({
      success: false,
      message: '请求过于频繁，请稍后再试',
    });
    // The payment gateway's notify is not limited: one gateway IP sends (and retries) every order's.
    for (let i = 0; i < 10; i++) expect((await gateway.call('GET', '/api/user/epay/notify?out_trade_no=x')).statusCode).toBe(200);
  });
});

describe.each(['in-process', 'real'] as const)('sessions across restarts and replicas (%s)', (backend) => {
  it('keeps a session valid after a restart and on a second gateway, and revokes it on both', async () => {
    const environment = await createTestEnvironment(backend);
    const first = await startGateway(backend, {}, environment);
    // A replica: its own relay name (its quota lease and its usage outbox), as each pod has.
    const second = await startGateway(backend, { INSTANCE_NAME: 'replica-2' }, environment);
    try {
      const session = await first.login('root', ROOT_PASSWORD);
      expect((await second.call('GET', '/api/user/self', { session })).statusCode).toBe(200);
      await first.close();
      const restarted = await startGateway(backend, {}, environment);
      try {
        expect((await restarted.call('GET', '/api/user/self', { session })).statusCode).toBe(200);
        await restarted.call('POST', '/api/user/logout', { session });
        await waitFor(async () => (await second.call('GET', '/api/user/self', { session })).statusCode === 401, 5_000, 'revoked on the other replica');
      } finally {
        await restarted.close();
      }
    } finally {
      await second.close();
      await environment.cleanup();
    }
  });
});
