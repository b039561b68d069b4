import OpenAI from 'openai';
import type { RateLimits } from '@aigw/contracts';
import { waitFor } from '@aigw/platform/testing';
import { chatPromptBound } from '../src/tokenizer/index';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(90_000);

/** The mock's count (tools/mock-upstream/README.md): ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);
/** A stream of 40 chunks 100 ms apart (`;` separates the mock's options in a comma list). */
const SLOW_STREAM = 'mock-gpt@chunks=40;delay=100';

/**
 * Usage limits through the relay (docs/architecture.md section 5.9) on both topologies: an API
 * key's requests per minute admit exactly their number however many arrive at once, its tokens
 * per minute are held for a request and settled with what it used, its concurrency never lets
 * more through to the upstream than allowed and frees a slot when the client leaves; a channel
 * at its limit is skipped; refusals are 429s in the client's protocol with OpenAI's headers and
 * Retry-After, which the official client honours; the user, group and model scopes apply.
 */
describe.each(backends)('usage limits (%s)', (backend) => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    await world.addChannel({
      name: 'main',
      models: ['mock-gpt', 'mock-limited', 'mock-model-capped', 'mock-gpt@latency=2500', 'mock-gpt@latency=1500', SLOW_STREAM].join(','),
    });
    await world.waitForModel('mock-gpt');
  });
  afterAll(async () => {
    await world?.close();
  });

  /** A new key of the world's user with these limits (resolved fresh by the relay on first use). */
  const keyWith = async (rateLimits: RateLimits, name = `limited-${Math.random().toString(36).slice(2, 8)}`) => {
    const answer = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name, unlimited_quota: true, rate_limits: rateLimits } })
    ).json();
    if (!answer.success) throw new Error(`token: ${answer.message}`);
    return answer.data[0].key as string;
  };
  const chat = (key: string, model = 'mock-gpt', extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }], ...extra }),
      signal,
    });
  const sentFor = (model: string) => world.mock.requests.filter((entry) => (entry.body as { model?: string } | undefined)?.model === model);
  const setRelayOption = async (key: string, value: unknown) => {
    await world.setOption(key, typeof value === 'string' ? value : JSON.stringify(value));
    await waitFor(
      async () =>
        JSON.stringify((await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.[key]) === JSON.stringify(value),
      10_000,
      `relay option ${key}`,
    );
  };

  it('admits exactly an RPM of 50 out of 200 requests sent at once, refusing the rest with 429, Retry-After and the x-ratelimit headers', async () => {
    const key = await keyWith({ rpm: 50 });
    const before = sentFor('mock-limited').length;
    const answers = await Promise.all(Array.from({ length: 200 }, () => chat(key, 'mock-limited')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 429)).toHaveLength(150);
    expect(sentFor('mock-limited').length - before).toBe(50);

    const admitted = answers.find((answer) => answer.status === 200)!;
    expect(admitted.headers.get('x-ratelimit-limit-requests')).toBe('50');
    expect(Number(admitted.headers.get('x-ratelimit-remaining-requests'))).toBeGreaterThanOrEqual(0);
    expect(admitted.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+(\.\d+)?s|\d+m\d+(\.\d+)?s)$/);

    const refused = answers.find((answer) => answer.status === 429)!;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // The sliding estimate admits one more once the 50 of this minute count as 49 of the last 60 s:
    // up to the window's end plus 60/50 s, so a burst in the first 1.2 s of a minute waits 61 s.
    expect(retryAfter).toBeLessThanOrEqual(62);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('50');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const body = (await refused.json()) as { error: { code: string; type: string; message: string } };
    expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(body.error.message).toMatch(
      /^Rate limit reached for this API key on requests per minute \(RPM\): Limit 50, Used 50\. Please try again in (\d+m)?\d+s\./,
    );
    await Promise.all(answers.filter((answer) => !answer.bodyUsed && answer.body).map((answer) => answer.body!.cancel()));
  });

  it("holds a request's tokens against a TPM limit and settles them with what it used; a key that used its tokens is refused", async () => {
    const key = await keyWith({ tpm: 1_200 });
    const prompt = mockTokens('hello there');
    // Held: the prompt and max_tokens; used: the prompt and the mock's 4 completion tokens.
    const first = await chat(key, 'mock-gpt', { max_tokens: 500 });
    expect(first.status).toBe(200);
    // Settled right after its usage record: once billing has the record, the limit has the usage.
    await world.usageLog(first.headers.get('x-oneapi-request-id')!);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('1200');
    // The hold: the prompt's bound (its UTF-8 bytes and the chat format's fixed costs, no tokenizer pass) and max_tokens.
    const held = 1_200 - Number(first.headers.get('x-ratelimit-remaining-tokens'));
    expect(held).toBe(500 + chatPromptBound([{ role: 'user', content: 'hello there' }]));
    const second = await chat(key, 'mock-gpt', { max_tokens: 500 });
    // The first was settled to what it used (the upstream's usage) before the second was held.
    expect(Number(second.headers.get('x-ratelimit-remaining-tokens'))).toBe(1_200 - (prompt + 4) - held);
    await world.usageLog(second.headers.get('x-oneapi-request-id')!);
    // A hold that no longer fits what is left is refused, naming tokens.
    const third = await chat(key, 'mock-gpt', { max_tokens: 1_190 });
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { message: string } }).error.message).toContain('tokens per minute (TPM)');
    expect(third.headers.get('x-ratelimit-remaining-tokens')).toBe(String(1_200 - 2 * (prompt + 4)));
  });

  it('never lets more than a concurrency of 3 reach the upstream, and frees the slot of a client that leaves', async () => {
    const key = await keyWith({ concurrency: 3 });
    const model = 'mock-gpt@latency=2500';
    const before = sentFor(model).length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => chat(key, model)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('requests at once');
    expect(sentFor(model).length - before).toBe(3);

    // A streaming client leaves mid-answer: its slot is freed, so three more fit at once again.
    const slow = SLOW_STREAM;
    const leaving = new AbortController();
    const streamed = await chat(key, slow, { stream: true }, leaving.signal);
    expect(streamed.status).toBe(200);
    const reader = streamed.body!.getReader();
    await reader.read();
    leaving.abort();
    await waitFor(
      async () => {
        const probes = await Promise.all(Array.from({ length: 3 }, () => chat(key, 'mock-gpt')));
        await Promise.all(probes.filter((probe) => probe.body).map((probe) => probe.body!.cancel()));
        return probes.every((probe) => probe.status === 200);
      },
      10_000,
      'slot freed after the client left',
    );
  });

  it('skips a channel at its own limit and serves from another; with none left the client gets 429', async () => {
    await world.addChannel({ name: 'capped first', key: 'mk-capped', priority: 10, models: 'mock-routed', rate_limits: { rpm: 1 } });
    await world.addChannel({ name: 'spare', key: 'mk-spare', priority: 0, models: 'mock-routed', rate_limits: { rpm: 1 } });
    await world.waitForModel('mock-routed');
    const key = await keyWith({});
    const keysUsed: string[] = [];
    for (let turn = 0; turn < 2; turn++) {
      const answer = await chat(key, 'mock-routed');
      expect(answer.status).toBe(200);
      keysUsed.push(String(world.mock.requests.at(-1)!.headers.authorization));
    }
    // The higher tier first; at its limit the lower one serves.
    expect(keysUsed).toEqual(['Bearer mk-capped', 'Bearer mk-spare']);
    const full = await chat(key, 'mock-routed');
    expect(full.status).toBe(429);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await full.json()) as { error: { message: string } }).error.message).toMatch(/^every channel serving mock-routed is at its usage limit/);
  });

  it('limits a user through the group and the default, and a model for everyone, with the established per-user request limit', async () => {
    await setRelayOption('GroupRateLimits', { default: { rpd: 2 } });
    const key = await keyWith({});
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('your account on requests per day (RPD): Limit 2');
    await setRelayOption('GroupRateLimits', {});

    await setRelayOption('ModelRateLimits', { 'mock-model-capped': { rpm: 1 } });
    expect((await chat(await keyWith({}), 'mock-model-capped')).status).toBe(200);
    expect((await chat(await keyWith({}), 'mock-model-capped')).status).toBe(429);
    await setRelayOption('ModelRateLimits', {});

    await setRelayOption('ModelRequestRateLimitCount', 1);
    await setRelayOption('ModelRequestRateLimitEnabled', true);
    expect((await chat(await keyWith({}))).status).toBe(200);
    const other = await keyWith({});
    // Another key of the same user shares the user's count.
    expect((await chat(other)).status).toBe(429);
    await setRelayOption('ModelRequestRateLimitEnabled', false);
    expect((await chat(other)).status).toBe(200);
  });

  it('writes each refusal as an error log (type 5) admins filter by type and the user sees, naming the limit', async () => {
    const key = await keyWith({ rpd: 1 }, 'logged');
    expect((await chat(key)).status).toBe(200);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    const requestId = refused.headers.get('x-oneapi-request-id')!;
    const rowsOf = async (path: string, session = world.root) =>
      ((await world.gateway.call('GET', `${path}?type=5&p=1&page_size=100`, { session })).json().data?.items ?? []) as Array<Record<string, unknown>>;
    await waitFor(async () => (await rowsOf('/api/log/')).some((row) => row.request_id === requestId), 10_000, 'error log');
    const row = (await rowsOf('/api/log/')).find((entry) => entry.request_id === requestId)!;
    expect(row).toMatchObject({
      type: 5,
      token_name: 'logged',
      model_name: 'mock-gpt',
      quota: 0,
      content: 'rate limit: API key rpd limit 1 reached; 1 request refused',
    });
    expect(JSON.parse(String(row.other))).toMatchObject({ error_code: 'rate_limit_exceeded', status_code: 429, scope: 'key', field: 'rpd', limit: 1 });
    expect((await rowsOf('/api/log/self', world.user)).some((entry) => entry.request_id === requestId)).toBe(true);
  });

  it('answers a refusal in the Anthropic and Gemini shapes on their routes', async () => {
    const key = await keyWith({ rpm: 1 });
    await chat(key);
    const anthropic = await fetch(`${world.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'mock-gpt', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(anthropic.status).toBe(429);
    expect(anthropic.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const gemini = await fetch(`${world.baseUrl}/v1beta/models/mock-gpt:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(gemini.status).toBe(429);
    expect(await gemini.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });

  it('is a 429 the official client understands: it waits the Retry-After and succeeds once the slot is free', async () => {
    const key = await keyWith({ concurrency: 1 });
    const before = sentFor('mock-gpt@latency=1500').length;
    const slow = chat(key, 'mock-gpt@latency=1500').then((answer) => {
      if (answer.status !== 200) throw new Error(`the slow request got ${answer.status}`);
      return answer;
    });
    // The slow request holds the slot once it reached the upstream.
    await waitFor(() => sentFor('mock-gpt@latency=1500').length > before, 10_000, 'slow request upstream');
    const client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: key, maxRetries: 3 });
    const started = Date.now();
    const answer = await client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toContain('hello');
    // It was refused at least once and waited the second it was told.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    await slow;
  });

  it('shows what a scope counts now: a key to its owner and admins, a user to themselves, channels and models to admins', async () => {
    const tokenAnswer = (
      await world.gateway.call('POST', '/api/token/', {
        session: world.user,
        body: { name: 'counted', unlimited_quota: true, rate_limits: { rpm: 100, tpd: 100_000, concurrency: 5 } },
      })
    ).json();
    const { key, id } = tokenAnswer.data[0] as { key: string; id: number };
    for (let turn = 0; turn < 3; turn++) expect((await chat(key, 'mock-gpt')).status).toBe(200);
    const use = async (query: string, session = world.user) => (await world.gateway.call('GET', `/api/limits/use?${query}`, { session })).json();
    const counted = await use(`scope=key&id=${id}`);
    expect(counted.success).toBe(true);
    expect(counted.data).toEqual([
      { field: 'rpm', used: 3, reset_seconds: expect.any(Number) },
      { field: 'rpd', used: 0, reset_seconds: expect.any(Number) },
      { field: 'tpm', used: 0, reset_seconds: expect.any(Number) },
      { field: 'tpd', used: expect.any(Number), reset_seconds: expect.any(Number) },
      { field: 'concurrency', used: 0, reset_seconds: 0 },
    ]);
    // Settled: three answers of the mock's usage (the prompt and 4 completion tokens each).
    await waitFor(async () => (await use(`scope=key&id=${id}`)).data[3].used === 3 * (mockTokens('hello there') + 4), 10_000, 'tokens settled');
    expect((await use(`scope=key&id=${id}`, world.root)).success).toBe(true);
    // A request in flight holds one of the key's slots.
    const before = sentFor('mock-gpt@latency=1500').length;
    const slow = chat(key, 'mock-gpt@latency=1500');
    await waitFor(() => sentFor('mock-gpt@latency=1500').length > before, 10_000, 'slow request upstream');
    expect((await use(`scope=key&id=${id}`)).data[4]).toEqual({ field: 'concurrency', used: 1, reset_seconds: 0 });
    expect((await slow).status).toBe(200);

    // Another user sees neither the key's figures nor the user's; channels and models are admins'.
    await world.gateway.register('mallory', 'mallory-password');
    const mallory = await world.gateway.login('mallory', 'mallory-password');
    expect(await use(`scope=key&id=${id}`, mallory)).toMatchObject({ success: false, message: 'token not found' });
    const inChinese = async (query: string, session = world.user) =>
      (await world.gateway.call('GET', `/api/limits/use?${query}`, { session, headers: { 'accept-language': 'zh-CN' } })).json();
    expect(await inChinese(`scope=key&id=${id}`, mallory)).toMatchObject({ success: false, message: '令牌不存在' });
    expect(await use('scope=key&id=first')).toMatchObject({ success: false, message: 'id: must be a positive whole number' });
    expect(await inChinese('scope=key&id=first')).toMatchObject({ success: false, message: 'id: 必须是正整数' });
    expect((await use(`scope=user&id=${world.user.id}`, mallory)).success).toBe(false);
    expect((await use(`scope=user&id=${world.user.id}`)).success).toBe(true);
    expect((await use('scope=channel&id=1')).success).toBe(false);
    expect((await use('scope=model&id=mock-gpt', world.root)).success).toBe(true);
    expect(await use('scope=planet&id=1')).toMatchObject({ success: false, message: expect.stringContaining('scope must be key, user, channel or model') });
  });

  it('refuses limits that are not whole numbers of 0 or more, or unknown, naming the field', async () => {
    const refuse = async (rateLimits: unknown) =>
      (await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'bad', rate_limits: rateLimits } })).json();
    expect(await refuse({ rpm: -1 })).toMatchObject({
      success: false,
      message: expect.stringContaining('rpm must be a whole number of 0 or more (0 = unlimited)'),
    });
    expect(await refuse({ rpm: 1.5 })).toMatchObject({ success: false, message: expect.stringContaining('rpm must be a whole number') });
    expect(await refuse({ rph: 10 })).toMatchObject({
      success: false,
      message: expect.stringContaining('unknown limit rph: limits are rpm, rpd, tpm, tpd and concurrency'),
    });
  });
});
