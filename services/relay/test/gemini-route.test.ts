import { GoogleGenAI } from '@google/genai';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's counts (tools/mock-upstream/README.md): prompt = characters / 4, answer = 4 chunks of one token. */
const promptTokens = (text: string) => Math.ceil(text.length / 4);

/** Gemini's own API through the gateway with Google's official client: native on Gemini channels, converted on the others. */
describe('gemini routes', () => {
  let world: RelayWorld;
  let billing: DataSource;
  let ai: GoogleGenAI;

  const logsAfter = async (model: string, count: number) => {
    await waitFor(
      async () => (await billing.getRepository(LogEntity).countBy({ type: 2, user_id: world.user.id, model_name: model })) >= count,
      10_000,
      `${model} logs`,
    );
    return billing.getRepository(LogEntity).find({ where: { type: 2, user_id: world.user.id, model_name: model }, order: { id: 'ASC' } });
  };
  const received = (suffix: string) => world.mock.requests.filter((entry) => entry.path.endsWith(suffix));

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    billing = await openBillingDatabase(world.gateway.env);
    await world.addChannel({ name: 'gemini', type: 24, models: 'mock-gemini,mock-gemini-embed' });
    await world.addChannel({ name: 'openai', models: 'mock-gpt,mock-embed' });
    await world.waitForModel('mock-gemini');
    await world.waitForModel('mock-gpt');
    ai = new GoogleGenAI({ apiKey: world.apiKey, httpOptions: { baseUrl: world.baseUrl } });
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  it('passes a Gemini channel the body unchanged and bills usageMetadata', async () => {
    const config = {
      systemInstruction: 'Answer briefly.',
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as never, threshold: 'BLOCK_ONLY_HIGH' as never }],
      thinkingConfig: { thinkingBudget: 128 },
      maxOutputTokens: 100,
    };
    const answer = await ai.models.generateContent({ model: 'mock-gemini', contents: 'Say hello', config });
    expect(answer.text).toBe('hello hello hello hello');
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: promptTokens('Answer briefly.Say hello'), candidatesTokenCount: 4 });

    const upstream = received(':generateContent').at(-1)!;
    expect(upstream.path).toBe('/v1beta/models/mock-gemini:generateContent');
    expect(upstream.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }],
      systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' }],
      generationConfig: { thinkingConfig: { thinkingBudget: 128 }, maxOutputTokens: 100 },
    });
    expect(upstream.headers['x-goog-api-key']).toBe('mock-key');

    const [log] = await logsAfter('mock-gemini', 1);
    // Model ratio 1, completion ratio 2 (mock-*).
    expect(log).toMatchObject({
      prompt_tokens: promptTokens('Answer briefly.Say hello'),
      completion_tokens: 4,
      quota: promptTokens('Answer briefly.Say hello') + 8,
    });
  });

  it('streams natively as SSE (the client) and as a JSON array (no alt=sse)', async () => {
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'mock-gemini', contents: 'stream please' })) text += chunk.text ?? '';
    expect(text).toBe('hello hello hello hello');
    expect(received(':streamGenerateContent').at(-1)!.url).toBe('/v1beta/models/mock-gemini:streamGenerateContent?alt=sse');

    const response = await fetch(`${world.baseUrl}/v1beta/models/mock-gemini:streamGenerateContent?key=${world.apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'as an array' }] }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const array = JSON.parse(await response.text()) as Array<{ candidates: Array<{ content: { parts: Array<{ text: string }> } }>; usageMetadata?: unknown }>;
    expect(array.map((chunk) => chunk.candidates[0]!.content.parts[0]!.text).join('')).toBe('hello hello hello hello');
    expect(array.at(-1)!.usageMetadata).toMatchObject({ candidatesTokenCount: 4 });

    const logs = await logsAfter('mock-gemini', 3);
    for (const log of logs.slice(-2)) expect(log).toMatchObject({ is_stream: true, completion_tokens: 4 });
  });

  it('converts for an OpenAI channel: request, answer and stream', async () => {
    const answer = await ai.models.generateContent({ model: 'mock-gpt', contents: 'converted hello', config: { temperature: 0.5, maxOutputTokens: 50 } });
    expect(answer.text).toBe('hello hello hello hello');
    expect(answer.candidates![0]!.finishReason).toBe('STOP');
    const upstream = received('/v1/chat/completions').at(-1)!;
    expect(upstream.body).toMatchObject({ model: 'mock-gpt', messages: [{ role: 'user', content: 'converted hello' }], temperature: 0.5, max_tokens: 50 });

    let text = '';
    let usage: unknown;
    for await (const chunk of await ai.models.generateContentStream({ model: 'mock-gpt', contents: 'converted stream' })) {
      text += chunk.text ?? '';
      usage = chunk.usageMetadata ?? usage;
    }
    expect(text).toBe('hello hello hello hello');
    expect(usage).toMatchObject({ candidatesTokenCount: 4 });

    const logs = await logsAfter('mock-gpt', 2);
    expect(logs.map((log) => [log.is_stream, log.completion_tokens])).toEqual([
      [false, 4],
      [true, 4],
    ]);
    expect(logs[0]!.quota).toBe(logs[0]!.prompt_tokens + 8);
  });

  it('embeds natively on Gemini channels and through /v1/embeddings on OpenAI ones', async () => {
    const native = await ai.models.embedContent({ model: 'mock-gemini-embed', contents: ['one text', 'another text'] });
    expect(native.embeddings).toHaveLength(2);
    expect(received(':batchEmbedContents').length).toBeGreaterThan(0);

    const converted = await ai.models.embedContent({ model: 'mock-embed', contents: 'single text' });
    expect(converted.embeddings).toHaveLength(1);
    expect(converted.embeddings![0]!.values).toHaveLength(8);
    expect(received('/v1/embeddings').at(-1)!.body).toMatchObject({ model: 'mock-embed', input: ['single text'] });

    // Gemini reports no usage for embeddings: the relay's count is billed; OpenAI's is the upstream's.
    const [nativeLog] = await logsAfter('mock-gemini-embed', 1);
    expect(nativeLog!.prompt_tokens).toBeGreaterThan(0);
    expect(JSON.parse(nativeLog!.other)).toMatchObject({ usage_source: 'estimated' });
    const [convertedLog] = await logsAfter('mock-embed', 1);
    expect(convertedLog).toMatchObject({ prompt_tokens: promptTokens('single text'), quota: promptTokens('single text') });
  });

  it('counts tokens here, lists the models, and answers errors in Google shape', async () => {
    const counted = await ai.models.countTokens({ model: 'mock-gemini', contents: 'how many tokens is this' });
    expect(counted.totalTokens).toBeGreaterThan(0);

    const models = await fetch(`${world.baseUrl}/v1beta/models`, { headers: { 'x-goog-api-key': world.apiKey } });
    const list = (await models.json()) as { models: Array<{ name: string }> };
    expect(list.models.map((model) => model.name)).toEqual(expect.arrayContaining(['models/mock-gemini', 'models/mock-gpt']));
    // The OpenAI path answers Google's clients in Google's shape too, key in the query.
    const v1 = (await (await fetch(`${world.baseUrl}/v1/models?key=${world.apiKey}`)).json()) as { models: Array<{ name: string }> };
    expect(v1.models.map((model) => model.name)).toEqual(expect.arrayContaining(['models/mock-gemini']));

    const bad = await fetch(`${world.baseUrl}/v1beta/models/mock-gemini:generateContent?key=sk-not-a-key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });

    await expect(ai.models.generateContent({ model: 'mock-gemini', contents: [] })).rejects.toThrow(/contents/);
    await expect(ai.models.generateContent({ model: 'mock-nowhere', contents: 'x' })).rejects.toThrow(/no available channel|mock-nowhere/);
  });
});
