// The sk- key is checked from the headers before the body is read (issue 22 item 2,
// docs/architecture.md section 6.6): a missing or unknown key is answered 401 in the route's shape
// while the client has sent nothing but the head. A known key's body is capped by operation
// (RELAY_BODY_LIMIT_BYTES).
import type { AddressInfo } from 'node:net';
import { sendRaw } from '../../gateway/test/support/raw-http';
import { startGateway, type TestGateway } from '../../gateway/test/support/gateway';

const MiB = 1024 * 1024;
const RELAY_LIMIT = 256 * 1024;

describe('relay: the key before the body', () => {
  let gateway: TestGateway;
  let port: number;
  let key: string;

  beforeAll(async () => {
    gateway = await startGateway('in-process', { RELAY_BODY_LIMIT_BYTES: String(RELAY_LIMIT) });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    port = (gateway.app.server.address() as AddressInfo).port;
    await gateway.register('keyholder', 'keyholder-pass');
    const session = await gateway.login('keyholder', 'keyholder-pass');
    const created = (await gateway.call('POST', '/api/token/', { session, body: { name: 'key', unlimited_quota: true } })).json();
    key = created.data[0].key;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** A POST announcing a 5 MiB JSON body, of which nothing is sent. */
  const headOnly = (path: string, headers: Record<string, string>) =>
    sendRaw(port, { method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': String(5 * MiB), ...headers } });

  it.each(['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/moderations'])(
    'answers %s 401 for an unknown key without reading the body',
    async (path) => {
      const answer = await headOnly(path, { authorization: `Bearer sk-${'x'.repeat(48)}` });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toEqual({ error: expect.objectContaining({ type: 'authentication_error', code: 'invalid_api_key' }) });
    },
  );

  it('answers a missing key 401 without reading the body', async () => {
    const answer = await headOnly('/v1/chat/completions', {});
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.message).toMatch(/no API key/);
  });

  it('answers the Messages API in its own shape, before the body', async () => {
    const answer = await headOnly('/v1/messages', { 'x-api-key': 'sk-unknown', 'anthropic-version': '2023-06-01' });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringMatching(/^invalid API key/) } });
  });

  it('answers an unknown /v1 or /v1beta path 404 without reading the body, and closes the connection', async () => {
    for (const path of ['/v1beta/cachedContents', '/v1/files']) {
      const answer = await headOnly(path, { authorization: 'Bearer sk-unknown' });
      expect({ path, status: answer.status, connection: answer.headers.connection }).toEqual({ path, status: 404, connection: 'close' });
      expect(JSON.parse(answer.body).error).toMatchObject({ message: `Invalid URL (POST ${path})`, code: 'not_found' });
    }
    for (const path of ['/v1/chat/completions', '/v1beta/models/gemini-pro:generateContent']) {
      const refused = await headOnly(path, { authorization: 'Bearer sk-unknown' });
      expect({ path, status: refused.status, connection: refused.headers.connection }).toEqual({ path, status: 401, connection: 'close' });
    }
  });

  it('checks the key of the model list from the headers too', async () => {
    const answer = await sendRaw(port, { method: 'GET', path: '/v1/models', headers: { authorization: 'Bearer sk-unknown' } });
    expect(answer.status).toBe(401);
  });

  it("caps a known key's body by operation, before reading it", async () => {
    const answer = await headOnly('/v1/chat/completions', { authorization: `Bearer ${key}` });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ message: expect.stringMatching(/^request body is too large/), code: 'request_too_large' });
    // Under the cap the request reaches the relay (no channel serves the model: 503, not 413).
    const small = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nowhere', messages: [{ role: 'user', content: 'x'.repeat(RELAY_LIMIT / 2) }] }),
    });
    expect(small.status).not.toBe(413);
    expect(small.status).not.toBe(401);
  });
});
