import { waitFor } from '@aigw/platform/testing';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

interface ErrorBody {
  error: { message: string; type: string; code: string; param: string };
}

/**
 * Issue 22 (rule R7, tests D2 and D3): every multiplier of an operation is an integer in the
 * provider's range at ingress (400 naming the field, nothing forwarded), it multiplies the hold,
 * and no body shape (deep nesting, wrong types) reaches the relay's recursive code.
 */
describe('request bounds', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    await world.addChannel({ name: 'main', models: 'mock-gpt,mock-embed' });
    await world.waitForModel('mock-gpt');
  });
  afterAll(async () => {
    await world?.close();
  });

  /** POSTs raw JSON text (so 2^63-1 and 1e400 go out as written). */
  const post = (path: string, body: string | Record<string, unknown>, key = world.apiKey) =>
    fetch(`${world.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const chatBody = (extra: string) => `{"model":"mock-gpt","messages":[{"role":"user","content":"hi"}]${extra}}`;
  const completionBody = (extra: string) => `{"model":"mock-gpt","prompt":"hi"${extra}}`;

  /** Sends `body`, expects a 400 naming `param` with `message`, and that the upstream saw nothing. */
  const refused = async (path: string, body: string | Record<string, unknown>, param: string, message: RegExp) => {
    const before = world.mock.requests.length;
    const response = await post(path, body);
    const answer = (await response.json()) as ErrorBody;
    expect({ status: response.status, param: answer.error?.param }).toEqual({ status: 400, param });
    expect(answer.error.message).toMatch(message);
    expect(world.mock.requests.length).toBe(before);
  };

  const badCounts = ['-1', '0', '1.5', '129', '2147483648', '9223372036854775807', '1e400', '"5"', '[1]', 'true', '{}'];

  it.each(badCounts)('chat refuses n = %s with 400 naming n, forwarding nothing', async (n) => {
    await refused('/v1/chat/completions', chatBody(`,"n":${n}`), 'n', /^n must be an integer from 1 to 128/);
  });

  it.each(badCounts)('completions refuse n = %s with 400 naming n', async (n) => {
    await refused('/v1/completions', completionBody(`,"n":${n}`), 'n', /^n must be an integer from 1 to 128/);
  });

  it.each(['-1', '21', '1.5', '"3"', '[2]', '9223372036854775807'])('completions refuse best_of = %s with 400 naming best_of', async (bestOf) => {
    await refused('/v1/completions', completionBody(`,"best_of":${bestOf}`), 'best_of', /^best_of must be an integer from 0 to 20/);
  });

  it('the playground takes the same bounds', async () => {
    const response = await world.gateway.call('POST', '/pg/chat/completions', {
      session: world.user,
      body: { model: 'mock-gpt', messages: [{ role: 'user', content: 'x' }], n: -1 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.param).toBe('n');
  });

  it('refuses an embeddings batch above 2048 inputs and malformed inputs, naming input', async () => {
    await refused('/v1/embeddings', { model: 'mock-embed', input: Array.from({ length: 2049 }, () => 'x') }, 'input', /^input/);
    await refused('/v1/embeddings', { model: 'mock-embed', input: [[1, 2], ['x']] }, 'input', /^input/);
    await refused('/v1/embeddings', { model: 'mock-embed', input: 42 }, 'input', /^input/);
    await refused('/v1/completions', { model: 'mock-gpt', prompt: Array.from({ length: 2049 }, () => 'x') }, 'prompt', /^prompt/);
    const batch = await post('/v1/embeddings', { model: 'mock-embed', input: Array.from({ length: 2048 }, () => 'x') });
    expect(batch.status).toBe(200);
  });

  it('forwards valid multipliers as sent', async () => {
    const response = await post('/v1/chat/completions', chatBody(',"n":2,"max_tokens":5'));
    expect(response.status).toBe(200);
    expect((world.mock.requests.at(-1)!.body as { n: unknown }).n).toBe(2);
    expect((await post('/v1/completions', completionBody(',"n":2,"best_of":3,"max_tokens":5'))).status).toBe(200);
    expect((await post('/v1/chat/completions', chatBody(',"n":null'))).status).toBe(200);
  });

  it('multiplies the hold by n, best_of and the prompt batch', async () => {
    // Held for 1 answer: 8 prompt tokens + 1000 × completion ratio 2 = 2008, within the key's 5000;
    // 3 answers would hold 6008, more than the key has: refused before any upstream call.
    const created = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'bounded', remain_quota: 5000, unlimited_quota: false } })
    ).json();
    expect(created.success).toBe(true);
    const key = created.data[0].key as string;
    await waitFor(async () => (await post('/v1/chat/completions', chatBody(',"max_tokens":1000'), key)).status === 200, 5_000, 'one answer served');
    const before = world.mock.requests.length;
    for (const body of [chatBody(',"max_tokens":1000,"n":3')]) {
      const response = await post('/v1/chat/completions', body, key);
      expect(response.status).toBe(403);
      expect(((await response.json()) as ErrorBody).error.code).toBe('insufficient_token_quota');
    }
    for (const body of [
      completionBody(',"max_tokens":1000,"best_of":3'),
      completionBody(',"max_tokens":1000,"n":3'),
      '{"model":"mock-gpt","prompt":["a","b","c"],"max_tokens":1000}',
      '{"model":"mock-gpt","prompt":[[1,2],[3],[4]],"max_tokens":1000}',
    ]) {
      const response = await post('/v1/completions', body, key);
      expect(response.status).toBe(403);
    }
    expect(world.mock.requests.length).toBe(before);
    expect((await post('/v1/completions', completionBody(',"max_tokens":1000'), key)).status).toBe(200);
  });

  it('holds the most n answers can cost without overflowing: refused as unaffordable, never a 5xx', async () => {
    // 128 × 10^7 completion tokens is beyond any single count the price formula takes.
    const response = await post('/v1/chat/completions', chatBody(',"n":128,"max_tokens":10000000'));
    expect(response.status).toBe(403);
    expect(((await response.json()) as ErrorBody).error.code).toBe('insufficient_user_quota');
  });

  /** `{"a":{"a":...}}` nested `depth` levels. */
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('refuses a tool schema nested 10,000 deep with 400, and serves a reasonably deep one', async () => {
    const deep = `{"model":"mock-gpt","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(10_000)}}}]}`;
    expect(deep.length).toBeGreaterThan(60_000);
    await refused('/v1/chat/completions', deep, 'tools', /^tools: nested deeper than 128 levels/);
    const anthropic = await fetch(`${world.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': world.apiKey, 'content-type': 'application/json' },
      body: `{"model":"mock-gpt","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${nested(10_000)}}]}`,
    });
    expect(anthropic.status).toBe(400);
    expect(((await anthropic.json()) as { type: string }).type).toBe('error');
    const fine = `{"model":"mock-gpt","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(100)}}}]}`;
    expect((await post('/v1/chat/completions', fine)).status).toBe(200);
  });

  it('refuses deep nesting on console routes too, in the envelope', async () => {
    const response = await world.gateway.app.inject({
      method: 'PUT',
      url: '/api/user/self',
      headers: {
        cookie: `session=${world.user.cookie}`,
        'new-api-user': String(world.user.id),
        'content-type': 'application/json',
        'accept-language': 'en-US',
      },
      payload: `{"display_name":${nested(10_000)}}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ success: false, message: expect.stringMatching(/^display_name: nested deeper than 128 levels/) });
  });
});
