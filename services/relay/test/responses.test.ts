import OpenAI from 'openai';
import { waitFor } from '@aigw/platform/testing';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's usage (tools/mock-upstream/README.md): input = characters / 4, output = chunks x words. */
const inputTokens = (text: string) => Math.ceil(text.length / 4);

/** OpenAI's Responses API through the gateway with the official client: whole, streamed, stored and retrieved. */
describe('responses', () => {
  let world: RelayWorld;
  let client: OpenAI;

  const logOf = (requestId: string) => world.usageLog(requestId);
  const balance = () => world.balance();

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    // An Anthropic channel carries the model at a higher priority: it cannot serve Responses and is never tried.
    await world.addChannel({ name: 'anthropic-type', type: 14, models: 'mock-gpt,mock-gpt@incomplete,mock-gpt@cut=2', priority: 10 });
    await world.addChannel({ name: 'openai', models: 'mock-gpt,mock-gpt@incomplete,mock-gpt@cut=2' });
    await world.waitForModel('mock-gpt');
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('answers responses.create and bills its usage: input, output at the completion ratio', async () => {
    const before = await balance();
    const input = 'Tell the gateway a short story.';
    const { data: response, response: raw } = await client.responses.create({ model: 'mock-gpt', input, instructions: 'Be brief.' }).withResponse();
    const requestId = raw.headers.get('x-oneapi-request-id')!;
    expect(response.output_text).toBe('hello hello hello hello');
    expect(response.usage).toMatchObject({ input_tokens: inputTokens(input + 'Be brief.'), output_tokens: 4 });
    expect(world.mock.requests.some((entry) => entry.path === '/v1/messages')).toBe(false);

    const log = await logOf(requestId);
    // Model ratio 1, completion ratio 2 (mock-*), group ratio 1.
    expect(log).toMatchObject({ prompt_tokens: inputTokens(input + 'Be brief.'), completion_tokens: 4, quota: inputTokens(input + 'Be brief.') + 2 * 4 });
    await waitFor(async () => (await balance()) === before - log.quota, 5_000, 'balance applied');
  });

  it('streams the typed events through response.completed and bills the usage it carries', async () => {
    const { data: stream, response } = await client.responses.create({ model: 'mock-gpt', input: 'stream me', stream: true }).withResponse();
    const types: string[] = [];
    let text = '';
    let usage: OpenAI.Responses.ResponseUsage | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') usage = event.response.usage;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toBe('hello hello hello hello');
    expect(usage).toMatchObject({ input_tokens: inputTokens('stream me'), output_tokens: 4 });
    const requestId = response.headers.get('x-oneapi-request-id')!;
    expect(await logOf(requestId)).toMatchObject({
      is_stream: true,
      prompt_tokens: inputTokens('stream me'),
      completion_tokens: 4,
      quota: inputTokens('stream me') + 8,
    });
  });

  it('bills an incomplete answer for what it produced, never at zero', async () => {
    const { data: stream, response } = await client.responses.create({ model: 'mock-gpt@incomplete', input: 'long story', stream: true }).withResponse();
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.incomplete');
    const log = await logOf(response.headers.get('x-oneapi-request-id')!);
    expect(log).toMatchObject({ prompt_tokens: inputTokens('long story'), completion_tokens: 4, quota: inputTokens('long story') + 8 });
  });

  it('bills a stream cut before its usage by what was delivered', async () => {
    const response = await fetch(`${world.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-gpt@cut=2', input: 'cut me', stream: true }),
    });
    const body = await response.text();
    expect(body).toContain('response.output_text.delta');
    expect(body).toContain('event: error');
    const log = await logOf(response.headers.get('x-oneapi-request-id')!);
    // Two deltas of one token each were delivered; the prompt is the relay's own count.
    expect(log.completion_tokens).toBe(2);
    expect(log.quota).toBe(log.prompt_tokens + 2 * 2);
    expect(JSON.parse(log.other)).toMatchObject({ usage_source: 'estimated' });
  });

  it('retrieves and deletes a stored response for its owner only', async () => {
    const created = await client.responses.create({ model: 'mock-gpt', input: 'keep this' });
    await waitFor(
      async () => (await fetch(`${world.baseUrl}/v1/responses/${created.id}`, { headers: { authorization: `Bearer ${world.apiKey}` } })).ok,
      5_000,
      'stored',
    );
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, status: 'completed', output_text: 'hello hello hello hello' });
    const items = await client.responses.inputItems.list(created.id);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user' });

    // Another user with a key of their own gets 404, as for an id that never existed.
    await world.gateway.register('bob', 'bob-password');
    const bob = await world.gateway.login('bob', 'bob-password');
    const token = (await world.gateway.call('POST', '/api/token/', { session: bob, body: { name: 'bob', unlimited_quota: true } })).json();
    const stranger = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: token.data[0].key as string, maxRetries: 0 });
    await expect(stranger.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.retrieve('resp_unknown')).rejects.toMatchObject({ status: 404 });

    await client.responses.delete(created.id);
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses what it cannot bill: a background response, no input', async () => {
    await expect(client.responses.create({ model: 'mock-gpt', input: 'later', background: true })).rejects.toMatchObject({ status: 400, param: 'background' });
    await expect(client.responses.create({ model: 'mock-gpt' })).rejects.toMatchObject({ status: 400, param: 'input' });
  });
});
