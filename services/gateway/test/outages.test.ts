// Dependencies away, on the real backend (PostgreSQL + NATS + Redis): a service the gateway cannot
// reach is a 502 in the caller's shape; PostgreSQL refusing connections is a 503 with Retry-After;
// each outage is warned about once a second, never with a stack per request.
import net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@aigw/platform';
import { startTcpProxy, testServices, waitFor, type TcpProxy } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type TestGateway } from './support/gateway';

jest.setTimeout(60_000);

/** A logger whose lines the test reads. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', service: 'gateway' }, stream), lines };
}

/** Lines carrying a stack trace or logged at error level. */
const stackLines = (lines: Array<Record<string, unknown>>) =>
  lines.filter((line) => (line.level as number) >= 50 || JSON.stringify(line).includes('\\n    at '));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a service the gateway cannot reach (distributed topology)', () => {
  let gateway: TestGateway;
  let baseUrl: string;
  const { logger, lines } = capture();

  beforeAll(async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    gateway = await startGateway(
      'real',
      {
        IDENTITY_URL: down,
        BILLING_URL: down,
        CHANNELS_URL: down,
        RELAY_URL: down,
        NOTIFIER_URL: down,
        INTERNAL_SECRET: 'i'.repeat(32),
      },
      undefined,
      { logger },
    );
    // Over a socket: the proxy streams request bodies, which inject's fake request does not model.
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(gateway.app.server.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { statusCode: response.status, headers: Object.fromEntries(response.headers), json: await response.json() };
  };

  it('answers 502 in the caller’s shape: OpenAI, Anthropic, Gemini on relay paths, the envelope on /api', async () => {
    const openai = await call('POST', '/v1/chat/completions', chat, { authorization: 'Bearer sk-x' });
    expect(openai.statusCode).toBe(502);
    expect(openai.json).toEqual({
      error: {
        message: `a service is unreachable, try again later (request id: ${openai.headers['x-oneapi-request-id']})`,
        type: 'new_api_error',
        param: '',
        code: 'service_unreachable',
      },
    });

    const anthropic = await call('POST', '/v1/messages', { ...chat, max_tokens: 10 });
    expect(anthropic.statusCode).toBe(502);
    expect(anthropic.json).toEqual({
      type: 'error',
      error: { type: 'api_error', message: expect.stringMatching(/^a service is unreachable, try again later \(request id: /) },
    });

    const gemini = await call('POST', '/v1beta/models/gemini-2.0-flash:generateContent', { contents: [] });
    expect(gemini.statusCode).toBe(502);
    expect(gemini.json).toEqual({ error: { code: 502, status: 'UNAVAILABLE', message: expect.stringMatching(/^a service is unreachable/) } });

    const models = await call('GET', '/v1/models');
    expect(models.statusCode).toBe(502);
    expect(models.json).toMatchObject({ error: { code: 'service_unreachable' } });

    const envelope = await call('GET', '/api/status');
    expect(envelope.statusCode).toBe(502);
    expect(envelope.json).toEqual({ success: false, message: 'a service is unreachable, try again later' });
  });

  it('warns once a second per unreachable service with a count of the rest, and logs no stack', async () => {
    const relayWarnings = () => lines.filter((line) => line.outage === 'service relay');
    const before = relayWarnings().length;
    for (let i = 0; i < 20; i++) expect((await call('POST', '/v1/chat/completions', chat)).statusCode).toBe(502);
    // Twenty failures in well under a second: at most one more line (none if the last one was under a second ago).
    expect(relayWarnings().length - before).toBeLessThanOrEqual(1);
    await waitFor(
      async () => {
        expect((await call('POST', '/v1/chat/completions', chat)).statusCode).toBe(502);
        return (relayWarnings().at(-1)!.suppressed as number) > 0;
      },
      5_000,
      'a warning counting the suppressed failures',
    );
    expect(relayWarnings().at(-1)).toMatchObject({ level: 40, msg: 'relay is unreachable', code: 'ECONNREFUSED' });
    expect(lines.filter((line) => line.msg === 'response errored')).toEqual([]);
    expect(stackLines(lines)).toEqual([]);
  });
});

describe('PostgreSQL refusing connections (all-in-one, real backend)', () => {
  let gateway: TestGateway;
  let database: TcpProxy;
  const { logger, lines } = capture();

  beforeAll(async () => {
    const { databaseUrl } = await testServices();
    const server = new URL(databaseUrl);
    database = await startTcpProxy({ host: server.hostname, port: Number(server.port) || 5432 });
    gateway = await startGateway('real', { DATABASE_URL: database.via(databaseUrl) }, undefined, { logger });
  });
  afterAll(async () => {
    await database?.restore();
    await gateway?.close();
    await database?.close();
  });

  const login = () => gateway.call('POST', '/api/user/login', { body: { username: 'root', password: ROOT_PASSWORD } });

  it('answers login 503 with Retry-After in the envelope while the database is away, and logs in once it is back', async () => {
    expect((await login()).json().success).toBe(true);
    await database.cut();
    lines.length = 0;
    for (let i = 0; i < 5; i++) {
      const refused = await login();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
      expect(refused.json()).toEqual({ success: false, message: 'the service is briefly unavailable, try again shortly' });
    }
    const warnings = lines.filter((line) => line.msg === 'dependency unavailable');
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    // One line per kind of outage (the lost connections, then the refused ones), not one per request.
    expect(warnings.length).toBe(new Set(warnings.map((line) => line.outage)).size);
    expect(warnings[0]).toMatchObject({ level: 40, url: '/api/user/login' });
    expect(stackLines(lines).filter((line) => line.msg === 'unhandled error')).toEqual([]);

    await database.restore();
    await waitFor(async () => (await login()).json().success === true, 15_000, 'login after the database is back');
  });
});
