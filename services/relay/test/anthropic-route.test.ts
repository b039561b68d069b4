import Anthropic from '@anthropic-ai/sdk';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock reports these prompt-cache counts (tools/mock-upstream/README.md). */
const CACHED_MODEL = 'mock-claude@cachewrite=300;cacheread=200';

/** The official Anthropic SDK against `POST /v1/messages`, served from OpenAI- and Anthropic-type channels. */
describe('anthropic messages route', () => {
  let world: RelayWorld;
  let billing: DataSource;
  let client: Anthropic;

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    billing = await openBillingDatabase(world.gateway.env);
    await world.addChannel({ name: 'openai-type', models: 'mock-gpt' });
    await world.addChannel({ name: 'anthropic-type', type: 14, models: `mock-claude,${CACHED_MODEL}` });
    await world.setOption('CacheRatio', JSON.stringify({ 'mock-claude*': 0.1 }));
    await world.waitForModel('mock-gpt');
    await world.waitForModel('mock-claude');
    client = new Anthropic({ baseURL: world.baseUrl, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const logsOf = (model: string) => billing.getRepository(LogEntity).findBy({ type: 2, user_id: world.user.id, model_name: model });

  it.each([
    ['mock-gpt', '/v1/chat/completions'],
    ['mock-claude', '/v1/messages'],
  ])('answers messages.create and messages.stream from %s (upstream %s), and bills the usage', async (model, upstreamPath) => {
    const upstreamCalls = () => world.mock.requests.filter((entry) => entry.path === upstreamPath && entry.body?.model === model).length;
    const callsBefore = upstreamCalls();
    const message = await client.messages.create({
      model,
      max_tokens: 200,
      system: 'You are a test.',
      messages: [{ role: 'user', content: 'Say hello to the gateway, please.' }],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn' });
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(text.length).toBeGreaterThan(0);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    const stream = client.messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: 'stream it' }] });
    let streamed = '';
    stream.on('text', (delta) => (streamed += delta));
    const final = await stream.finalMessage();
    expect(streamed.length).toBeGreaterThan(0);
    expect(final.content[0]).toMatchObject({ type: 'text', text: streamed });
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBeGreaterThan(0);

    // Anthropic-in, OpenAI inside, then the channel's own protocol upstream.
    expect(upstreamCalls()).toBe(callsBefore + 2);

    await waitFor(async () => (await logsOf(model)).length === 2, 15_000, `${model} usage logs`);
    const logs = await logsOf(model);
    const whole = logs.find((log) => !log.is_stream)!;
    const streamedLog = logs.find((log) => log.is_stream)!;
    expect(whole).toMatchObject({ prompt_tokens: message.usage.input_tokens, completion_tokens: message.usage.output_tokens });
    expect(streamedLog).toMatchObject({ prompt_tokens: final.usage.input_tokens, completion_tokens: final.usage.output_tokens });
    // Ratio 1, completion ratio 2, from the upstream's own counts.
    expect(whole.quota).toBe(message.usage.input_tokens + 2 * message.usage.output_tokens);
    for (const log of logs) expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('passes an Anthropic channel the native body unchanged (cache_control, thinking, beta header) and bills cache reads and writes at their ratios', async () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'A long system prompt worth caching.', cache_control: { type: 'ephemeral' } }];
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hello there', cache_control: { type: 'ephemeral', ttl: '5m' } }] },
    ];
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
    const { data: message, response } = await client.messages
      .create({ model: CACHED_MODEL, max_tokens: 2000, system, messages, thinking }, { headers: { 'anthropic-beta': 'extended-cache-ttl-2025-04-11' } })
      .withResponse();
    expect(message.usage).toMatchObject({ cache_read_input_tokens: 200, cache_creation_input_tokens: 300 });

    const received = world.mock.requests.filter((entry) => entry.path === '/v1/messages' && entry.body?.model === CACHED_MODEL).at(-1)!;
    expect(received.body).toEqual({ model: CACHED_MODEL, max_tokens: 2000, system, messages, thinking });
    expect(received.headers['anthropic-beta']).toBe('extended-cache-ttl-2025-04-11');
    expect(received.headers['x-api-key']).toBe('mock-key');

    const requestId = response.headers.get('x-oneapi-request-id')!;
    await waitFor(async () => (await billing.getRepository(LogEntity).countBy({ request_id: requestId })) > 0, 10_000, 'usage log');
    const log = await billing.getRepository(LogEntity).findOneByOrFail({ request_id: requestId });
    const input = message.usage.input_tokens;
    // input + reads x CacheRatio 0.1 + writes x CreateCacheRatio 1.25 (the default) + output x 2, all x model ratio 1.
    expect(log).toMatchObject({ prompt_tokens: input + 200 + 300, completion_tokens: message.usage.output_tokens });
    expect(log.quota).toBe(Math.round(input + 200 * 0.1 + 300 * 1.25 + 2 * message.usage.output_tokens));
    expect(JSON.parse(log.other)).toMatchObject({ cache_tokens: 200, cache_creation_tokens: 300, cache_creation_ratio: 1.25, cache_ratio: 0.1 });

    // Streamed, the events come through as the upstream sent them, and the same counts are billed.
    const stream = client.messages.stream({ model: CACHED_MODEL, max_tokens: 2000, system, messages });
    const final = await stream.finalMessage();
    expect(final.usage).toMatchObject({ cache_read_input_tokens: 200, cache_creation_input_tokens: 300 });
    const streamedId = (await stream.withResponse()).response.headers.get('x-oneapi-request-id')!;
    await waitFor(async () => (await billing.getRepository(LogEntity).countBy({ request_id: streamedId })) > 0, 10_000, 'stream usage log');
    const streamed = await billing.getRepository(LogEntity).findOneByOrFail({ request_id: streamedId });
    expect(streamed.quota).toBe(Math.round(final.usage.input_tokens + 20 + 375 + 2 * final.usage.output_tokens));
  });

  it("lists the models in Anthropic's shape for Anthropic's client", async () => {
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual(expect.arrayContaining(['mock-gpt', 'mock-claude']));
    expect(page.data[0]).toMatchObject({ type: 'model', display_name: expect.any(String), created_at: expect.any(String) });
  });

  it('refuses a bad key and a missing max_tokens in Anthropic error shape', async () => {
    const bad = new Anthropic({ baseURL: world.baseUrl, apiKey: 'sk-not-a-real-key', maxRetries: 0 });
    await expect(bad.messages.create({ model: 'mock-gpt', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
    await expect(bad.messages.create({ model: 'mock-gpt', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );

    const response = await fetch(`${world.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': world.apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/max_tokens/) } });

    // The OpenAI route keeps its own error shape.
    const openAi = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-not-a-real-key', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(openAi.status).toBe(401);
    expect(await openAi.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
  });
});
