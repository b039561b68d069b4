import OpenAI from 'openai';
import { parseMockOptions, startMockUpstream, type MockUpstream } from '../server.mjs';

let mock: MockUpstream;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockUpstream({ maxRecorded: 50 });
  client = new OpenAI({ apiKey: 'sk-test-key', baseURL: `${mock.url}/v1`, maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const userMessage = 'What is the capital of France?'; // 30 characters -> 8 prompt tokens
const messages = [{ role: 'user' as const, content: userMessage }];

async function post(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    body: JSON.stringify(body),
  });
}

/** The JSON of a response, loosely typed (fetch types it as unknown). */
async function json(response: Response): Promise<any> {
  return response.json();
}

/** SSE events of a finished stream: [event name or '', data text]. Accepts LF and CRLF framing. */
function sseEvents(text: string): Array<[string, string]> {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '';
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return [event, data];
    });
}

describe('OpenAI protocol through the official client', () => {
  it('answers a chat completion with deterministic usage', async () => {
    const completion = await client.chat.completions.create({ model: 'mock-gpt@chunks=3;words=2', messages });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toBe('hello hello hello hello hello hello');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 8, completion_tokens: 6, total_tokens: 14 });
  });

  it('streams chunks and reports usage last when include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'mock-gpt@chunks=5',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (choice?.delta.content) texts.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    expect(texts).toEqual(['hello', ' hello', ' hello', ' hello', ' hello']);
    expect(finish).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 8, completion_tokens: 5, total_tokens: 13 });
  });

  it('sends no usage chunk when the client did not ask for it', async () => {
    const response = await post('/v1/chat/completions', { model: 'mock-gpt', messages, stream: true });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = sseEvents(await response.text());
    expect(events.at(-1)?.[1]).toBe('[DONE]');
    expect(events.some(([, data]) => data.includes('"usage"'))).toBe(false);
    expect(events).toHaveLength(1 + 4 + 1 + 1); // role, 4 chunks, finish, [DONE]
  });

  it('answers embeddings as floats and as base64 (the client default)', async () => {
    const result = await client.embeddings.create({ model: 'mock-embed', input: ['abcd', 'efghijkl'], dimensions: 4 });
    expect(result.data).toHaveLength(2);
    expect(result.data[1]?.embedding).toHaveLength(4);
    expect(result.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    expect(mock.requests[0]?.body.encoding_format).toBe('base64');

    const floats = await client.embeddings.create({ model: 'mock-embed', input: 'abcdefgh', encoding_format: 'float' });
    expect(floats.data[0]?.embedding).toHaveLength(8);
    expect(floats.data[0]?.embedding).toEqual(result.data[0]?.embedding.concat(floats.data[0]!.embedding.slice(4)));
    expect(floats.usage.prompt_tokens).toBe(2);
  });

  it('lists and retrieves models', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['mock-gpt', 'mock-embed', 'mock-claude', 'mock-gemini']));
    expect((await client.models.retrieve('mock-gpt')).id).toBe('mock-gpt');
    await expect(client.models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
  });

  it('answers legacy completions, streamed and not', async () => {
    const completion = await client.completions.create({ model: 'mock-gpt@chunks=2', prompt: 'abcdefghi' });
    expect(completion.choices[0]?.text).toBe('hello hello');
    expect(completion.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });

    const stream = await client.completions.create({ model: 'mock-gpt@chunks=3', prompt: ['ab', 'cd'], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('hello hello hello');
    expect(usage).toEqual({ prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 });
  });

  it('records each request with its authorization header, capped', async () => {
    await client.chat.completions.create({ model: 'mock-gpt', messages });
    const recorded = mock.requests.at(-1)!;
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'mock-gpt', messages } });
    expect(recorded.headers.authorization).toBe('Bearer sk-test-key');
    expect(recorded.options.chunks).toBe(4);

    for (let index = 0; index < 60; index++) await fetch(`${mock.url}/v1/models`);
    expect(mock.requests).toHaveLength(50);
    expect(mock.stats.received).toBeGreaterThanOrEqual(61);
  });
});

describe('Anthropic protocol', () => {
  const body = {
    model: 'mock-claude@chunks=3',
    max_tokens: 100,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: userMessage }] }],
  };

  it('answers a message with usage', async () => {
    const response = await post('/v1/messages', body, { headers: { 'x-api-key': 'anthropic-key', 'anthropic-version': '2023-06-01' } });
    const message = await response.json();
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'hello hello hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 3 }, // (9 + 30) chars / 4
    });
    expect(mock.requests.at(-1)?.headers['x-api-key']).toBe('anthropic-key');
  });

  it('streams the real event sequence with usage', async () => {
    const response = await post('/v1/messages', { ...body, stream: true });
    const events = sseEvents(await response.text());
    expect(events.map(([name]) => name)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const [name, data] of events) expect(JSON.parse(data).type).toBe(name);
    expect(JSON.parse(events[0]![1]).message.usage).toEqual({ input_tokens: 10, output_tokens: 1 });
    expect(JSON.parse(events[7]![1])).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } });
    expect(
      events
        .slice(3, 6)
        .map(([, data]) => JSON.parse(data).delta.text)
        .join(''),
    ).toBe('hello hello hello');
  });

  it('answers errors in the Anthropic shape', async () => {
    const response = await post('/v1/messages', { ...body, model: 'mock-claude@status=429' });
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } });
  });
});

describe('Gemini protocol', () => {
  const body = { systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [{ role: 'user', parts: [{ text: userMessage }] }] };

  it('answers generateContent with usageMetadata', async () => {
    const response = await post('/v1beta/models/mock-gemini@chunks=2:generateContent?key=gemini-key', body);
    expect(await response.json()).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'hello hello' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
    });
    expect(mock.requests.at(-1)?.url).toContain('key=gemini-key');
  });

  it('streams with alt=sse (CRLF framing) and usage in the last event', async () => {
    const response = await post('/v1beta/models/mock-gemini@chunks=3:streamGenerateContent?alt=sse', body);
    const text = await response.text();
    expect(text).toContain('\r\n\r\n');
    const events = sseEvents(text).map(([, data]) => JSON.parse(data));
    expect(events).toHaveLength(4);
    expect(events.map((event) => event.candidates[0].content.parts[0].text).join('')).toBe('hello hello hello');
    expect(events.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3 } });
  });

  it('streams a JSON array without alt=sse, and accepts a URL-encoded model', async () => {
    const response = await post(`/v1beta/models/${encodeURIComponent('mock-gemini@chunks=2')}:streamGenerateContent`, body);
    const array = await json(response);
    expect(array).toHaveLength(3);
    expect(array[2].usageMetadata.candidatesTokenCount).toBe(2);
  });

  it('answers errors in the Google shape', async () => {
    const response = await post('/v1beta/models/mock-gemini@status=500:generateContent', body);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 500, message: expect.any(String), status: 'INTERNAL' } });
  });
});

describe('behaviour options and failure modes', () => {
  it('reads options from the header, the body field and the model suffix, the suffix winning', async () => {
    const response = await post(
      '/v1/chat/completions',
      { model: 'mock-gpt@words=3', mock: 'chunks=2,words=2', messages },
      { headers: { 'x-mock': 'chunks=9,nousage' } },
    );
    const completion = await json(response);
    expect(completion.choices[0].message.content).toBe('hello hello hello hello hello hello');
    expect(completion.usage).toBeUndefined();
    expect(mock.requests.at(-1)?.options).toMatchObject({ chunks: 2, words: 3, nousage: true });
  });

  it('applies server defaults, and rejects an unknown option with 400', async () => {
    const other = await startMockUpstream({ defaults: 'chunks=1,words=7' });
    try {
      const completion = await json(await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages }) }));
      expect(completion.usage.completion_tokens).toBe(7);
      const bad = await fetch(`${other.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm@chunk=3', messages }) });
      expect(bad.status).toBe(400);
      expect((await json(bad)).error.message).toContain('unknown mock option "chunk"');
    } finally {
      await other.close();
    }
    expect(() => parseMockOptions('delay=-1')).toThrow('delay');
    expect(parseMockOptions({ echoHeaders: true, cut: 2 })).toMatchObject({ echoHeaders: true, cut: 2 });
  });

  it.each([
    [500, 'server_error'],
    [429, 'rate_limit_exceeded'],
    [401, 'invalid_api_key'],
  ])('status=%i answers an OpenAI error the client understands', async (status, code) => {
    const error = await client.chat.completions.create({ model: `mock-gpt@status=${status}`, messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status, code });
    if (status === 429) expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('1');
  });

  it('fail=N is an alias of status=N', async () => {
    expect((await post('/v1/chat/completions', { model: 'mock-gpt@fail=503', messages })).status).toBe(503);
  });

  it('hang sends no headers at all', async () => {
    const started = Date.now();
    await expect(post('/v1/chat/completions', { model: 'mock-gpt@hang', messages }, { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('latency delays the first byte; delay spaces the chunks', async () => {
    let started = Date.now();
    await post('/v1/chat/completions', { model: 'mock-gpt@latency=150', messages });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    started = Date.now();
    const response = await post('/v1/chat/completions', { model: 'mock-gpt@chunks=4;delay=60', messages, stream: true });
    const reader = response.body!.getReader();
    const first = await reader.read();
    const firstAt = Date.now() - started;
    expect(new TextDecoder().decode(first.value)).toContain('"role":"assistant"');
    while (!(await reader.read()).done);
    const total = Date.now() - started;
    expect(firstAt).toBeLessThan(150);
    expect(total).toBeGreaterThanOrEqual(3 * 60 - 10);
  });

  it('slowdrip sends the answer one byte at a time', async () => {
    const started = Date.now();
    const response = await post('/v1/embeddings', { model: 'mock-embed@slowdrip;drip=2;dims=1', input: 'x' });
    const reader = response.body!.getReader();
    const sizes: number[] = [];
    let text = '';
    for (let result = await reader.read(); !result.done; result = await reader.read()) {
      sizes.push(result.value.length);
      text += new TextDecoder().decode(result.value);
    }
    expect(Math.max(...sizes)).toBe(1);
    expect(JSON.parse(text).data[0].embedding).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(text.length * 2 * 0.8);
  });

  it('cut=K drops the connection after K chunks, with no usage and no [DONE]', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'mock-gpt@chunks=5;delay=5;cut=2',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const error = await (async () => {
      for (;;) {
        const result = await reader.read();
        if (result.done) return undefined;
        text += new TextDecoder().decode(result.value);
      }
    })().catch((caught: Error) => caught);
    expect(error).toMatchObject({ name: 'TypeError', message: 'terminated' }); // undici: the body ended early
    const events = sseEvents(text);
    expect(events).toHaveLength(3); // role + 2 chunks
    expect(text).not.toContain('"usage"');
    expect(text).not.toContain('[DONE]');

    const nonStream = await post('/v1/chat/completions', { model: 'mock-gpt@cut=0', messages });
    await expect(nonStream.text()).rejects.toThrow();
  });

  it('cut=K also cuts the official client stream', async () => {
    const stream = await client.chat.completions.create({ model: 'mock-gpt@chunks=6;cut=3', messages, stream: true });
    const texts: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) if (chunk.choices[0]?.delta.content) texts.push(chunk.choices[0].delta.content);
      })(),
    ).rejects.toThrow();
    expect(texts).toHaveLength(3);
  });

  it('nousage and negusage', async () => {
    const stream = await post('/v1/chat/completions', { model: 'mock-gpt@nousage', messages, stream: true, stream_options: { include_usage: true } });
    expect(await stream.text()).not.toContain('"usage"');
    const anthropic = await post('/v1/messages', { model: 'mock-claude@nousage', max_tokens: 5, messages, stream: true });
    expect(await anthropic.text()).not.toContain('"usage"');

    const negative = await client.chat.completions.create({ model: 'mock-gpt@negusage;chunks=2', messages });
    expect(negative.usage).toEqual({ prompt_tokens: -8, completion_tokens: -2, total_tokens: -10 });
  });

  it('badsse inserts a data line that is not JSON', async () => {
    const response = await post('/v1/chat/completions', { model: 'mock-gpt@badsse;chunks=2', messages, stream: true });
    const data = sseEvents(await response.text()).map(([, line]) => line);
    const broken = data.filter((line) => {
      if (line === '[DONE]') return false;
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken).toHaveLength(1);
    expect(data.at(-1)).toBe('[DONE]');

    const nonStream = await post('/v1/chat/completions', { model: 'mock-gpt@badsse', messages });
    await expect(nonStream.json()).rejects.toThrow();
  });

  it('huge-line sends one very long data line', async () => {
    const response = await post('/v1/chat/completions', { model: 'mock-gpt@huge-line=100000;chunks=2', messages, stream: true });
    const lines = (await response.text()).split('\n');
    expect(Math.max(...lines.map((line) => line.length))).toBeGreaterThan(100000);
  });

  it('echo-headers returns the received headers as the content', async () => {
    const completion = await client.chat.completions.create({ model: 'mock-gpt@echo-headers', messages }, { headers: { 'x-canary': 'canary-123' } });
    const headers = JSON.parse(completion.choices[0]!.message.content!);
    expect(headers.authorization).toBe('Bearer sk-test-key');
    expect(headers['x-canary']).toBe('canary-123');
    expect(completion.usage?.completion_tokens).toBe(1);

    const stream = await post(
      '/v1/messages',
      { model: 'mock-claude@echo-headers', max_tokens: 5, messages, stream: true },
      { headers: { 'x-api-key': 'leak-me' } },
    );
    expect(await stream.text()).toContain('leak-me');
  });

  it('redirect answers 302 to a loopback discard port', async () => {
    const response = await post('/v1/chat/completions', { model: 'mock-gpt@redirect', messages }, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://127.0.0.1:9/');
  });

  it('answers 404 on unknown routes and 400 on a body that is not JSON', async () => {
    expect((await fetch(`${mock.url}/v2/nothing`)).status).toBe(404);
    const notJson = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', body: 'not json' });
    expect(notJson.status).toBe(400);
  });

  it('enforces apiKey when configured, in every provider style', async () => {
    const guarded = await startMockUpstream({ apiKey: 'right' });
    try {
      const call = (path: string, headers: Record<string, string>) =>
        fetch(`${guarded.url}${path}`, { method: 'POST', headers, body: JSON.stringify({ model: 'mock-gpt', messages }) });
      expect((await call('/v1/chat/completions', { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await call('/v1/chat/completions', { authorization: 'Bearer right' })).status).toBe(200);
      expect((await call('/v1/messages', { 'x-api-key': 'right' })).status).toBe(200);
      expect((await call('/v1beta/models/g:generateContent?key=right', {})).status).toBe(200);
      expect((await call('/v1beta/models/g:generateContent', { 'x-goog-api-key': 'wrong' })).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('close() ends hanging and streaming connections', async () => {
    const other = await startMockUpstream();
    const hanging = fetch(`${other.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm@hang', messages }) }).catch(
      (error: Error) => error,
    );
    const streaming = await fetch(`${other.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm@chunks=1000;delay=50', messages, stream: true }),
    });
    const streamed = streaming.text().catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await other.close();
    // fetch's errors come from another realm than jest's globals: compare by name.
    expect(await hanging).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(await streamed).toMatchObject({ name: 'TypeError', message: 'terminated' });
  });
});

describe('OpenAI legacy billing endpoints', () => {
  const today = new Date().toISOString().slice(0, 10);
  const usagePath = `/v1/dashboard/billing/usage?start_date=${today}&end_date=${today}`;
  const get = (base: string, path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  it('answers the subscription and the usage of the month with the default figures', async () => {
    const subscription = await get(mock.url, '/v1/dashboard/billing/subscription', { authorization: 'Bearer sk-any' });
    expect(subscription.status).toBe(200);
    expect(await json(subscription)).toMatchObject({
      object: 'billing_subscription',
      has_payment_method: true,
      hard_limit_usd: 100,
      soft_limit_usd: 100,
      system_hard_limit_usd: 100,
      access_until: expect.any(Number),
    });
    expect(await json(await get(mock.url, usagePath))).toEqual({ object: 'list', daily_costs: [], total_usage: 0 });
    expect(mock.requests.map((request) => request.path)).toEqual(['/v1/dashboard/billing/subscription', '/v1/dashboard/billing/usage']);
    expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-any');
  });

  it('refuses a usage query without both dates, as OpenAI does', async () => {
    for (const path of [
      '/v1/dashboard/billing/usage',
      `/v1/dashboard/billing/usage?start_date=${today}`,
      '/v1/dashboard/billing/usage?start_date=May&end_date=June',
    ]) {
      const response = await get(mock.url, path);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('start_date and end_date') });
    }
  });

  it('reports the configured figures, changed live, and per-request options over them', async () => {
    const other = await startMockUpstream({ billing: { hardLimitUsd: 18, totalUsage: 1234.5 } });
    try {
      expect((await json(await get(other.url, '/v1/dashboard/billing/subscription'))).hard_limit_usd).toBe(18);
      expect((await json(await get(other.url, usagePath))).total_usage).toBe(1234.5);
      other.billing.hardLimitUsd = 7.5;
      other.billing.totalUsage = 0;
      expect((await json(await get(other.url, '/v1/dashboard/billing/subscription'))).hard_limit_usd).toBe(7.5);
      expect((await json(await get(other.url, usagePath))).total_usage).toBe(0);
      // The header's options win over the server's figures, for that request only.
      expect((await json(await get(other.url, '/v1/dashboard/billing/subscription', { 'x-mock': 'hard-limit=0.5' }))).hard_limit_usd).toBe(0.5);
      expect((await json(await get(other.url, usagePath, { 'x-mock': 'total-usage=42' }))).total_usage).toBe(42);
      expect((await json(await get(other.url, '/v1/dashboard/billing/subscription'))).hard_limit_usd).toBe(7.5);
      // Generic options apply too; a bad figure is refused like any bad option.
      expect((await get(other.url, usagePath, { 'x-mock': 'status=503' })).status).toBe(503);
      const bad = await get(other.url, usagePath, { 'x-mock': 'total-usage=-1' });
      expect(bad.status).toBe(400);
      expect((await json(bad)).error.message).toContain('total-usage');
    } finally {
      await other.close();
    }
  });

  it('nobilling answers 404, as an upstream without the endpoints', async () => {
    const response = await get(mock.url, '/v1/dashboard/billing/subscription', { 'x-mock': 'nobilling' });
    expect(response.status).toBe(404);
    expect((await json(response)).error).toMatchObject({ code: 'not_found', message: 'mock upstream: no route for GET /v1/dashboard/billing/subscription' });
  });
});

describe('options per API key', () => {
  let accounts: MockUpstream;

  beforeAll(async () => {
    accounts = await startMockUpstream({
      keys: { 'sk-revoked': 'status=401', 'sk-rich': 'hard-limit=50,total-usage=750', 'sk-plain': 'nobilling', 'sk-short': { chunks: 1 } },
    });
  });
  afterAll(() => accounts.close());

  const chat = (key: string, model = 'mock-gpt', headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
    fetch(`${accounts.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model, messages }) });

  it('gives each key its own behaviour, on every route, GET ones included', async () => {
    const models = await fetch(`${accounts.url}/v1/models`, { headers: { authorization: 'Bearer sk-revoked' } });
    expect(models.status).toBe(401);
    expect((await json(models)).error).toMatchObject({ code: 'invalid_api_key' });
    expect((await chat('sk-revoked')).status).toBe(401);
    expect((await json(await chat('sk-short'))).usage.completion_tokens).toBe(1);
    // Any other key is the server's default behaviour.
    expect((await json(await chat('sk-other'))).usage.completion_tokens).toBe(4);
    expect((await fetch(`${accounts.url}/v1/models`, { headers: { authorization: 'Bearer sk-other' } })).status).toBe(200);

    const billing = async (key: string) => {
      const headers = { authorization: `Bearer ${key}` };
      const subscription = await fetch(`${accounts.url}/v1/dashboard/billing/subscription`, { headers });
      if (subscription.status !== 200) return subscription.status;
      const usage = await json(await fetch(`${accounts.url}/v1/dashboard/billing/usage?start_date=2025-01-01&end_date=2025-02-01`, { headers }));
      return (await json(subscription)).hard_limit_usd - usage.total_usage / 100;
    };
    expect(await billing('sk-rich')).toBe(42.5);
    expect(await billing('sk-plain')).toBe(404);
    expect(await billing('sk-other')).toBe(100);
  });

  it('finds the key where apiKey is looked for, and lets the request override it', async () => {
    expect((await chat('', 'mock-gpt', { 'x-api-key': 'sk-revoked' })).status).toBe(401);
    expect((await chat('', 'mock-gpt', { 'x-goog-api-key': 'sk-revoked' })).status).toBe(401);
    expect((await fetch(`${accounts.url}/v1/models?key=sk-revoked`)).status).toBe(401);
    // The model suffix comes after the key's options.
    expect((await chat('sk-revoked', 'mock-gpt@status=200')).status).toBe(200);
    expect((await json(await chat('sk-short', 'mock-gpt@chunks=3'))).usage.completion_tokens).toBe(3);
  });

  it('is live, and checked at start', async () => {
    accounts.keys['sk-later'] = 'status=429';
    expect((await chat('sk-later')).status).toBe(429);
    delete accounts.keys['sk-later'];
    expect((await chat('sk-later')).status).toBe(200);
    accounts.keys['sk-typo'] = 'stauts=500';
    expect((await chat('sk-typo')).status).toBe(400);
    // A key named like an Object.prototype member is no entry.
    expect((await chat('constructor')).status).toBe(200);
    await expect(startMockUpstream({ keys: { 'sk-x': 'chunk=2' } })).rejects.toThrow('unknown mock option "chunk"');
  });
});
