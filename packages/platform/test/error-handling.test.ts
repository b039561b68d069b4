import { Writable } from 'node:stream';
import { msg } from '@aigw/contracts';
import { z } from 'zod';
import { createApp } from '../src/app';
import { signIdentity } from '../src/auth';
import { BusRequestError } from '../src/bus/bus';
import { dependencyOutage, RETRY_AFTER_SECONDS } from '../src/error-handler';
import { errorShapeFor } from '../src/error-shapes';
import { OperationalError, UserError } from '../src/errors';
import { createLogger } from '../src/logger';
import { createOutageLog } from '../src/outage-log';

/** A logger whose lines the test reads (parsed JSON). */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', service: 'test' }, stream), lines };
}

/** node-postgres' error for a server that is away, as TypeORM hands it on. */
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL' });
}

describe('error shapes by path', () => {
  it('gives relay paths their provider shape and everything else the envelope', () => {
    expect(errorShapeFor('/v1/chat/completions')).toBe('openai');
    expect(errorShapeFor('/v1/models?x=1')).toBe('openai');
    expect(errorShapeFor('/v1/messages')).toBe('anthropic');
    expect(errorShapeFor('/v1/messages/count_tokens')).toBe('anthropic');
    expect(errorShapeFor('/v1beta/models/gemini-pro:generateContent')).toBe('gemini');
    for (const path of ['/pg/chat/completions', '/mj/submit/imagine', '/suno/submit/music', '/dashboard/billing/usage'])
      expect(errorShapeFor(path)).toBe('openai');
    for (const path of ['/api/user/login', '/api/mj/self', '/api/task/', '/v1x', '/dashboard', '/healthz']) expect(errorShapeFor(path)).toBe('envelope');
  });
});

describe('dependency outages', () => {
  it('recognises a bus nobody answers, a database away and Redis gone', () => {
    expect(dependencyOutage(new BusRequestError('no reply', 'billing.token.resolve', 'timeout'))).toEqual({
      kind: 'bus billing.token.resolve',
      reason: 'no reply',
    });
    expect(dependencyOutage(new BusRequestError('none', 'billing.token.resolve', 'no-responder'))?.kind).toBe('bus billing.token.resolve');
    expect(dependencyOutage(new BusRequestError('down', 'identity.auth.resolve', 'disconnected'))?.kind).toBe('bus identity.auth.resolve');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 5432 });
    expect(dependencyOutage(refused)).toEqual({ kind: 'connection 127.0.0.1:5432', reason: 'connect ECONNREFUSED 127.0.0.1:5432' });
    expect(dependencyOutage(pgError('57P01', 'terminating connection due to administrator command'))?.kind).toBe('database');
    expect(dependencyOutage(pgError('57P03', 'the database system is starting up'))?.kind).toBe('database');
    expect(dependencyOutage(new Error('Connection terminated unexpectedly'))?.kind).toBe('database');
    // TypeORM wraps the driver's error in a QueryFailedError.
    const wrapped = Object.assign(new Error('terminating connection due to administrator command'), {
      name: 'QueryFailedError',
      driverError: pgError('57P01', 'terminating connection'),
    });
    expect(dependencyOutage(wrapped)?.kind).toBe('database');
    expect(dependencyOutage(new Error('outer', { cause: refused }))?.kind).toBe('connection 127.0.0.1:5432');
    expect(dependencyOutage(Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' }))?.kind).toBe('redis');
  });

  it('leaves bugs, constraint violations and a responder’s own refusal alone', () => {
    expect(dependencyOutage(new BusRequestError('quota too low', 'billing.quota.set', 'remote-error', 'invalid_request'))).toBeNull();
    expect(dependencyOutage(pgError('P0001', 'boom'))).toBeNull();
    expect(dependencyOutage(pgError('23505', 'duplicate key value violates unique constraint'))).toBeNull();
    expect(dependencyOutage(new TypeError('cannot read properties of undefined'))).toBeNull();
    expect(dependencyOutage('a string')).toBeNull();
  });
});

describe('outage log', () => {
  it('warns once per interval per kind and counts what it left out', () => {
    let now = 0;
    const log = createOutageLog({ intervalMs: 1_000, now: () => now });
    const { logger, lines } = capture();
    for (let i = 0; i < 5; i++) log.report(logger, 'database', { reason: 'refused' }, 'dependency unavailable');
    log.report(logger, 'service relay', {}, 'relay is unreachable');
    expect(lines.map((line) => [line.outage, line.suppressed, line.level])).toEqual([
      ['database', 0, 40],
      ['service relay', 0, 40],
    ]);
    now = 999;
    log.report(logger, 'database', {}, 'dependency unavailable');
    expect(lines).toHaveLength(2);
    now = 1_000;
    log.report(logger, 'database', { reason: 'refused' }, 'dependency unavailable');
    expect(lines[2]).toMatchObject({ outage: 'database', suppressed: 5, reason: 'refused', msg: 'dependency unavailable' });
    now = 5_000;
    log.report(logger, 'database', {}, 'dependency unavailable');
    expect(lines[3]).toMatchObject({ suppressed: 0 });
  });
});

describe('the error handler of createApp', () => {
  const build = (internalSecret?: string) => {
    const { logger, lines } = capture();
    const app = createApp({ logger, bodyLimitBytes: 1024, internalSecret });
    const away = () => {
      throw new BusRequestError('no reply to billing.token.resolve within 3000 ms', 'billing.token.resolve', 'timeout');
    };
    for (const path of ['/api/thing', '/v1/chat/completions', '/v1/messages', '/v1beta/models/m:generateContent']) app.post(path, async () => away());
    app.get('/api/database', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 5432 });
    });
    app.get('/api/operational', async () => {
      throw new OperationalError(
        'identity did not answer the credential lookup',
        'identity_unavailable',
        503,
        new BusRequestError('none', 'identity.auth.resolve', 'no-responder'),
      );
    });
    app.get('/api/bug', async () => {
      throw new TypeError('x is undefined');
    });
    app.get('/v1/refused', async () => {
      throw new UserError('model is required');
    });
    app.get('/api/id', async (request) => request.id);
    return { app, lines };
  };

  it('answers a dependency briefly away with 503 and Retry-After, in the shape of the path', async () => {
    const { app } = build();
    const envelope = await app.inject({ method: 'POST', url: '/api/thing' });
    expect(envelope.statusCode).toBe(503);
    expect(envelope.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(envelope.json()).toEqual({ success: false, message: 'the service is briefly unavailable, try again shortly' });

    const openai = await app.inject({ method: 'POST', url: '/v1/chat/completions' });
    const id = openai.headers['x-oneapi-request-id'] as string;
    expect(openai.statusCode).toBe(503);
    expect(openai.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(openai.json()).toEqual({
      error: {
        message: `the service is briefly unavailable, try again shortly (request id: ${id})`,
        type: 'new_api_error',
        param: '',
        code: 'service_unavailable',
      },
    });

    const anthropic = await app.inject({ method: 'POST', url: '/v1/messages' });
    expect(anthropic.statusCode).toBe(503);
    expect(anthropic.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining('request id:') } });

    const gemini = await app.inject({ method: 'POST', url: '/v1beta/models/m:generateContent' });
    expect(gemini.statusCode).toBe(503);
    expect(gemini.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', message: expect.stringContaining('briefly unavailable') } });

    const database = await app.inject({ method: 'GET', url: '/api/database' });
    expect(database.statusCode).toBe(503);
    expect(database.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(database.json()).toEqual({ success: false, message: 'the service is briefly unavailable, try again shortly' });

    const operational = await app.inject({ method: 'GET', url: '/api/operational' });
    expect(operational.statusCode).toBe(503);
    expect(operational.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
  });

  it('warns about an outage once a second, without a stack, however many requests fail', async () => {
    const { app, lines } = build();
    for (let i = 0; i < 10; i++) expect((await app.inject({ method: 'POST', url: '/api/thing' })).statusCode).toBe(503);
    const warnings = lines.filter((line) => line.outage === 'bus billing.token.resolve');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, reason: 'no reply to billing.token.resolve within 3000 ms', url: '/api/thing' });
    expect(lines.filter((line) => line.level === 50 || line.err !== undefined || JSON.stringify(line).includes('    at '))).toEqual([]);
  });

  it('still answers a bug with 500 and logs it with its stack; relay shapes answer business refusals with 400', async () => {
    const { app, lines } = build();
    const bug = await app.inject({ method: 'GET', url: '/api/bug' });
    expect(bug.statusCode).toBe(500);
    expect(bug.headers['retry-after']).toBeUndefined();
    expect(bug.json()).toEqual({ success: false, message: 'internal server error, contact the administrator' });
    expect(lines.find((line) => line.msg === 'unhandled error')).toMatchObject({ level: 50, err: { stack: expect.stringContaining('TypeError') } });
    const refused = await app.inject({ method: 'GET', url: '/v1/refused' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_request', message: expect.stringMatching(/^model is required \(request id: /) },
    });
  });

  it('never takes a request id from a client; a standalone service takes the one the gateway signed', async () => {
    const chosen = 'client-chosen-id-123';
    const { app: gateway } = build();
    const direct = await gateway.inject({ method: 'GET', url: '/api/id', headers: { 'x-request-id': chosen } });
    expect(direct.body).not.toBe(chosen);
    expect(direct.headers['x-oneapi-request-id']).toBe(direct.body);
    // A new one is time-ordered (request-ids.ts).
    expect(direct.body).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const secret = 's'.repeat(32);
    const { app: service } = build(secret);
    const unsigned = await service.inject({ method: 'GET', url: '/api/id', headers: { 'x-request-id': chosen } });
    expect(unsigned.body).not.toBe(chosen);
    const signed = await service.inject({
      method: 'GET',
      url: '/api/id',
      headers: { 'x-request-id': chosen, ...signIdentity(secret, 'GET', '/api/id', null, '127.0.0.1') },
    });
    expect(signed.body).toBe(chosen);
    const forged = await service.inject({
      method: 'GET',
      url: '/api/id',
      headers: { 'x-request-id': chosen, ...signIdentity('f'.repeat(32), 'GET', '/api/id', null, '127.0.0.1') },
    });
    expect(forged.body).not.toBe(chosen);
  });
});

describe('messages in the caller’s language', () => {
  const build = () => {
    const app = createApp({ logger: capture().logger, bodyLimitBytes: 1024 });
    const body = z.object({ name: z.string().min(1).max(5), count: z.number().int(), kind: z.enum(['a', 'b']) });
    app.post('/api/form', { schema: { body } }, async () => ({ success: true, message: msg('channels.select_to_tag') }));
    app.post('/v1/form', { schema: { body } }, async () => ({ ok: true }));
    app.get('/api/refused', async () => {
      throw new UserError(`ids: ${msg('channels.select_to_delete')}`);
    });
    return app;
  };
  const post = (app: ReturnType<typeof build>, url: string, payload: unknown, language?: string) =>
    app.inject({ method: 'POST', url, payload: payload as object, headers: language ? { 'accept-language': language } : {} });

  it("words a failed validation by zod's issue codes, each field once, in the console's language", async () => {
    const app = build();
    const bad = { name: 'toolong', count: 1.5 };
    expect((await post(app, '/api/form', bad, 'en-US')).json()).toEqual({
      success: false,
      message: 'name: must be at most 5 characters; count: must be a whole number; kind: must be one of a, b',
    });
    expect((await post(app, '/api/form', bad)).json().message).toBe('name: 最多 5 个字符; count: 必须是整数; kind: 必须是以下之一：a, b');
    expect((await post(app, '/api/form', { name: '', count: 1, kind: 'c' }, 'en-US')).json().message).toBe('name: cannot be empty; kind: must be one of a, b');
    // Relay routes keep zod's own words.
    expect((await post(app, '/v1/form', bad)).json().error.message).toMatch(/Too big|too_big|<=5/i);
  });

  it('words answers and refusals of console routes, a message inside other text too', async () => {
    const app = build();
    expect((await post(app, '/api/form', { name: 'x', count: 1, kind: 'a' }, 'en-US')).json()).toEqual({
      success: true,
      message: 'select the channels to tag first',
    });
    expect((await post(app, '/api/form', { name: 'x', count: 1, kind: 'a' })).json().message).toBe('请先选择要设置标签的渠道！');
    const refused = await app.inject({ method: 'GET', url: '/api/refused', headers: { 'accept-language': 'en' } });
    expect(refused.json().message).toBe('ids: select the channels to delete first');
  });
});
