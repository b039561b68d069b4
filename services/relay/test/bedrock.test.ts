import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { waitFor } from '@aigw/platform/testing';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';
import { BEDROCK_CREDENTIALS, BEDROCK_SESSION_TOKEN } from '../../../tools/mock-upstream/aws.mjs';

jest.setTimeout(60_000);

const [ACCESS_KEY, TEMPORARY_KEY] = Object.keys(BEDROCK_CREDENTIALS) as [string, string];
const KEY = `${ACCESS_KEY}|${BEDROCK_CREDENTIALS[ACCESS_KEY as keyof typeof BEDROCK_CREDENTIALS]}|us-east-1`;
const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const LLAMA = 'meta.llama3-1-8b-instruct-v1:0';
/** The mock reports these prompt-cache counts for this upstream model (tools/mock-upstream/README.md). */
const CACHED = `${CLAUDE}@cachewrite=300;cacheread=200`;
/** The mock's count: ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * AWS Bedrock channels (type 33) through the relay against the mock's Bedrock runtime, which
 * checks every call's SigV4 signature from the secret key as AWS does and streams AWS's binary
 * event stream: Claude through InvokeModel (OpenAI clients converted, Anthropic clients natively
 * with cache_control), Llama through Converse, billing, and the credential failures.
 */
describe.each(backends)('AWS Bedrock (%s)', (backend) => {
  let world: RelayWorld;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let channel: number;

  const runtimeCalls = (action: string) => world.mock.requests.filter((entry) => entry.path.endsWith(`/${action}`));
  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    // The mock is the channel's endpoint override (a VPC endpoint, say).
    channel = await world.addChannel({
      name: 'bedrock',
      type: 33,
      key: KEY,
      models: `${CLAUDE},${LLAMA},claude-cached`,
      model_mapping: JSON.stringify({ 'claude-cached': CACHED }),
    });
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'anthropic.*': 1, 'meta.*': 1, 'claude-cached': 1 }));
    await world.setOption('CacheRatio', JSON.stringify({ 'claude-cached': 0.1 }));
    await Promise.all([CLAUDE, LLAMA, 'claude-cached'].map((model) => world.waitForModel(model)));
    openai = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: world.baseUrl, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('chats with Claude through InvokeModel, whole and streamed, signed, and bills the usage', async () => {
    const question = 'Say hello to the gateway, please.';
    const { data: chat, response } = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: question }] }).withResponse();
    expect(chat.choices[0]?.message.content).toBe('hello hello hello hello');
    expect(chat.usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: 4 });
    const sent = runtimeCalls('invoke').at(-1)!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(CLAUDE)}/invoke`);
    expect(sent.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/\\d{8}/us-east-1/bedrock/aws4_request, SignedHeaders=`));
    expect(sent.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', messages: [{ role: 'user', content: [{ type: 'text', text: question }] }] });
    expect(sent.body).not.toHaveProperty('model');
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ quota: mockTokens(question) + 4 });

    const { data: stream, response: streamed } = await openai.chat.completions
      .create({ model: CLAUDE, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: question }] })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('hello hello hello hello');
    expect(usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: 4 });
    expect(runtimeCalls('invoke-with-response-stream')).toHaveLength(1);
    const log = await world.usageLog(requestIdOf(streamed));
    expect(log).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: 4, quota: mockTokens(question) + 4 });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('passes Anthropic clients natively (cache_control and beta kept) and bills cache reads and writes', async () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'A long system prompt worth caching.', cache_control: { type: 'ephemeral' } }];
    const message = await anthropic.messages
      .create(
        { model: 'claude-cached', max_tokens: 500, system, messages: [{ role: 'user', content: 'Hello there' }] },
        { headers: { 'anthropic-beta': 'extended-cache-ttl-2025-04-11' } },
      )
      .withResponse();
    expect(message.data).toMatchObject({ type: 'message', role: 'assistant', usage: { cache_read_input_tokens: 200, cache_creation_input_tokens: 300 } });
    const sent = runtimeCalls('invoke').at(-1)!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(CACHED)}/invoke`);
    expect(sent.body).toMatchObject({ system, anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['extended-cache-ttl-2025-04-11'], max_tokens: 500 });
    const log = await world.usageLog(message.response.headers.get('x-oneapi-request-id')!);
    const input = message.data.usage.input_tokens;
    // Prompt = input + reads + writes; reads at CacheRatio 0.1, writes at 1.25; output at completion ratio 1 (ModelRatio 1, no CompletionRatio).
    expect(log.prompt_tokens).toBe(input + 200 + 300);
    expect(log.quota).toBe(Math.round(input + 200 * 0.1 + 300 * 1.25 + message.data.usage.output_tokens));

    const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'stream it natively' }] });
    let streamed = '';
    stream.on('text', (delta) => (streamed += delta));
    const final = await stream.finalMessage();
    expect(streamed).toBe('hello hello hello hello');
    expect(final).toMatchObject({ stop_reason: 'end_turn', usage: { output_tokens: 4 } });
  });

  it('chats with other models through the Converse API, whole and streamed', async () => {
    const question = 'Make some noise';
    const { data: chat, response } = await openai.chat.completions
      .create({
        model: LLAMA,
        max_tokens: 64,
        temperature: 0.5,
        messages: [
          { role: 'system', content: 'be loud' },
          { role: 'user', content: question },
        ],
      })
      .withResponse();
    expect(chat.choices[0]).toMatchObject({ message: { content: 'hello hello hello hello' }, finish_reason: 'stop' });
    const sent = runtimeCalls('converse').at(-1)!;
    expect(sent.body).toEqual({
      messages: [{ role: 'user', content: [{ text: question }] }],
      system: [{ text: 'be loud' }],
      inferenceConfig: { maxTokens: 64, temperature: 0.5 },
    });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ prompt_tokens: mockTokens('be loud' + question), completion_tokens: 4 });

    const stream = await openai.chat.completions.create({ model: LLAMA, stream: true, messages: [{ role: 'user', content: question }] });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('hello hello hello hello');
    expect(finish).toBe('stop');
    expect(runtimeCalls('converse-stream')).toHaveLength(1);
  });

  it('signs with temporary credentials (a session token) and takes the region from the channel', async () => {
    const secret = BEDROCK_CREDENTIALS[TEMPORARY_KEY as keyof typeof BEDROCK_CREDENTIALS];
    await world.addChannel({
      name: 'bedrock-temporary',
      type: 33,
      key: `${TEMPORARY_KEY}|${secret}|eu-west-1|${BEDROCK_SESSION_TOKEN}`,
      models: 'meta.temp-model',
    });
    await world.addChannel({
      name: 'bedrock-region',
      type: 33,
      key: KEY.split('|').slice(0, 2).join('|'),
      other: 'ap-northeast-1',
      models: 'meta.region-model',
    });
    await Promise.all(['meta.temp-model', 'meta.region-model'].map((model) => world.waitForModel(model)));
    await openai.chat.completions.create({ model: 'meta.temp-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(runtimeCalls('converse').at(-1)!.headers).toMatchObject({ 'x-amz-security-token': BEDROCK_SESSION_TOKEN });
    expect(runtimeCalls('converse').at(-1)!.headers.authorization).toContain('/eu-west-1/bedrock/aws4_request');
    await openai.chat.completions.create({ model: 'meta.region-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(runtimeCalls('converse').at(-1)!.headers.authorization).toContain('/ap-northeast-1/bedrock/aws4_request');
  });

  it('refuses a wrong secret as AWS does, charges nothing, and lets auto-ban disable the channel', async () => {
    await world.setOption('AutomaticDisableChannelEnabled', true);
    const wrong = await world.addChannel({ name: 'bedrock-wrong', type: 33, key: `${ACCESS_KEY}|not-the-secret|us-east-1`, models: 'meta.wrong-model' });
    await world.waitForModel('meta.wrong-model');
    const failed = await openai.chat.completions
      .create({ model: 'meta.wrong-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    const apiError = failed as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.message).toContain('signature we calculated does not match');
    expect(await world.usageLog(apiError.headers!.get('x-oneapi-request-id')!)).toMatchObject({ quota: 0 });
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${wrong}`, { session: world.root })).json().data.status === 3,
      10_000,
      'wrong channel disabled',
    );
  });

  it('tests the channel and lists its models through signed calls', async () => {
    const tested = (await world.gateway.call('POST', `/api/channel/test/${channel}`, { session: world.root })).json();
    expect(tested).toMatchObject({ success: true });
    const models = (await world.gateway.call('GET', `/api/channel/fetch_models/${channel}`, { session: world.root })).json();
    expect(models).toMatchObject({ success: true, data: expect.arrayContaining([CLAUDE, LLAMA]) });
  });

  it('reports an exception inside the event stream to the client and bills what was streamed', async () => {
    await world.addChannel({
      name: 'bedrock-throttled',
      type: 33,
      key: KEY,
      models: 'claude-throttled',
      model_mapping: JSON.stringify({ 'claude-throttled': `${CLAUDE}@incomplete` }),
    });
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'anthropic.*': 1, 'meta.*': 1, 'claude-cached': 1, 'claude-throttled': 1 }));
    await world.waitForModel('claude-throttled');
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'claude-throttled', stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // read until the error
      }
    })().catch((error: unknown) => error);
    expect(String((failure as Error | undefined)?.message)).toContain('Too many requests');
    // One record, saying the stream broke; nothing was streamed but the prompt, which is what it charges.
    const log = await world.usageLog(requestIdOf(response));
    expect(log.content).toContain('upstream error in stream');
    expect(log.completion_tokens).toBe(0);
  });
});
