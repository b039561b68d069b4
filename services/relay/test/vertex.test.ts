import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { generateKeyPairSync } from 'node:crypto';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';
import { vertexServiceAccount } from '../../../tools/mock-upstream/routes/vertex.mjs';

jest.setTimeout(60_000);

const CLAUDE = 'claude-sonnet-4-5';
const GEMINI = 'gemini-2.0-flash';
const LLAMA = 'meta/llama-3.1-8b-instruct-maas';
/** The mock reports these prompt-cache counts for this model (tools/mock-upstream/README.md). */
const CLAUDE_CACHED = `${CLAUDE}@cachewrite=300;cacheread=200`;
const mockTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * Google Vertex AI channels (type 41) through the relay against the mock's Vertex endpoints,
 * whose token endpoint checks the service account's signed JWT as Google's does: Claude with the
 * official Anthropic SDK (natively, cache_control kept), Gemini with @google/genai (natively),
 * a MaaS model with the openai client, one token exchange for all of it, and the failures.
 */
describe.each(backends)('Vertex AI (%s)', (backend) => {
  let world: RelayWorld;
  let key: string;

  const calls = (fragment: string) => world.mock.requests.filter((entry) => entry.path.includes(fragment));
  const requestIdOf = (headers: { get(name: string): string | null }) => headers.get('x-oneapi-request-id')!;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    key = JSON.stringify(vertexServiceAccount(world.mock.url));
    await world.addChannel({
      name: 'vertex',
      type: 41,
      key,
      // Claude in us-east5, everything else in us-central1; the mock is the endpoint override.
      other: JSON.stringify({ default: 'us-central1', [CLAUDE]: 'us-east5', 'claude-cached': 'us-east5' }),
      models: `${CLAUDE},${GEMINI},${LLAMA},claude-cached`,
      model_mapping: JSON.stringify({ 'claude-cached': CLAUDE_CACHED }),
    });
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'claude-*': 1, 'gemini-*': 1, 'meta/*': 1 }));
    await world.setOption('CacheRatio', JSON.stringify({ 'claude-cached': 0.1 }));
    await Promise.all([CLAUDE, GEMINI, LLAMA, 'claude-cached'].map((model) => world.waitForModel(model)));
  });
  afterAll(async () => {
    await world?.close();
  });

  it('reaches Claude on Vertex with the Anthropic SDK: the body native (cache_control kept), usage and cache billed', async () => {
    const anthropic = new Anthropic({ baseURL: world.baseUrl, apiKey: world.apiKey, maxRetries: 0 });
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'A long system prompt worth caching.', cache_control: { type: 'ephemeral' } }];
    const { data: message, response } = await anthropic.messages
      .create({ model: 'claude-cached', max_tokens: 300, system, messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    expect(message).toMatchObject({ type: 'message', usage: { cache_read_input_tokens: 200, cache_creation_input_tokens: 300 } });
    const sent = calls(':rawPredict').at(-1)!;
    expect(sent.path).toBe(`/v1/projects/mock-project/locations/us-east5/publishers/anthropic/models/${encodeURIComponent(CLAUDE_CACHED)}:rawPredict`);
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
    expect(sent.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', system, max_tokens: 300 });
    expect(sent.body).not.toHaveProperty('model');
    const log = await world.usageLog(requestIdOf(response.headers));
    expect(log.prompt_tokens).toBe(message.usage.input_tokens + 500);
    expect(log.quota).toBe(Math.round(message.usage.input_tokens + 200 * 0.1 + 300 * 1.25 + message.usage.output_tokens));

    const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'stream it' }] });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe('hello hello hello hello');
    expect(final.usage.output_tokens).toBe(4);
    expect(calls(':streamRawPredict')).toHaveLength(1);
  });

  it('reaches Gemini on Vertex with @google/genai, natively, whole and streamed', async () => {
    const ai = new GoogleGenAI({ apiKey: world.apiKey, httpOptions: { baseUrl: world.baseUrl } });
    const answer = await ai.models.generateContent({ model: GEMINI, contents: 'Say hello', config: { temperature: 0.3 } });
    expect(answer.text).toBe('hello hello hello hello');
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: mockTokens('Say hello'), candidatesTokenCount: 4 });
    const sent = calls(':generateContent').at(-1)!;
    expect(sent.path).toBe(`/v1/projects/mock-project/locations/us-central1/publishers/google/models/${GEMINI}:generateContent`);
    expect(sent.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }], generationConfig: { temperature: 0.3 } });

    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({ model: GEMINI, contents: 'Stream hello' })) streamed += chunk.text ?? '';
    expect(streamed).toBe('hello hello hello hello');
    expect(calls(':streamGenerateContent').at(-1)!.url).toContain('alt=sse');
  });

  it('reaches partner models on the OpenAI-compatible MaaS endpoint, and OpenAI clients reach Claude and Gemini converted', async () => {
    const openai = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
    const question = 'Make some noise';
    const { data: chat, response } = await openai.chat.completions.create({ model: LLAMA, messages: [{ role: 'user', content: question }] }).withResponse();
    expect(chat.choices[0]?.message.content).toBe('hello hello hello hello');
    expect(calls('/endpoints/openapi/chat/completions').at(-1)!.body).toMatchObject({ model: LLAMA });
    expect(await world.usageLog(requestIdOf(response.headers))).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: 4 });

    for (const model of [CLAUDE, GEMINI]) {
      const converted = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: question }] });
      expect(converted.choices[0]?.message.content).toBe('hello hello hello hello');
      expect(converted.usage).toMatchObject({ completion_tokens: 4 });
    }
  });

  it('exchanges the service account for a token once, for every call of the hour', () => {
    expect(calls('/token')).toHaveLength(1);
    const exchange = calls('/token')[0]!;
    expect(exchange.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange.body).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
  });

  it('fails over (nothing charged) when the token endpoint refuses the key, and names a missing region', async () => {
    const openai = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
    // Another private key for the same account: Google refuses the JWT's signature.
    const impostor = {
      ...JSON.parse(key),
      private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    };
    await world.addChannel({ name: 'vertex-impostor', type: 41, key: JSON.stringify(impostor), other: 'us-central1', models: 'gemini-impostor' });
    await world.addChannel({ name: 'vertex-no-region', type: 41, key, models: 'gemini-no-region' });
    await Promise.all(['gemini-impostor', 'gemini-no-region'].map((model) => world.waitForModel(model)));

    const refused = await openai.chat.completions
      .create({ model: 'gemini-impostor', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    const apiError = refused as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(502);
    expect(apiError.code).toBe('upstream_auth_failed');
    expect(await world.usageLog(apiError.headers!.get('x-oneapi-request-id')!)).toMatchObject({ quota: 0 });
    expect(calls('/token').at(-1)!.body).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' });

    const noRegion = await openai.chat.completions
      .create({ model: 'gemini-no-region', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect((noRegion as InstanceType<typeof OpenAI.APIError>).code).toBe('channel_region_missing');
  });
});
