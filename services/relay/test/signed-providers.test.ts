import OpenAI from 'openai';
import { waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { zhipuToken } from '../src/providers/zhipu/api.js';
import { signTc3 } from '../src/providers/tencent/sign.js';
import { tencentProvider } from '../src/providers/tencent/index.js';
import { channel, context } from './providers/support.js';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's count (tools/mock-upstream/README.md): ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);
const MOCK_COMPLETION = 4;
const ANSWER = 'hello hello hello hello';

/** The credentials the mock's routes know (tools/mock-upstream/README.md, "Zhipu v3", "Baidu ERNIE v1", "Tencent Hunyuan"). */
const ZHIPU_KEY = 'mock-zhipu-id.mock-zhipu-secret';
const BAIDU_KEY = 'mock-baidu-api-key|mock-baidu-secret-key';
const TENCENT_KEY = '1300000000|mock-secret-id|mock-secret-key';

const decodeClaims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/**
 * Zhipu v3 (16), Baidu ERNIE v1 (15) and Tencent Hunyuan (23) channels through the relay, against
 * the mock's routes, which check every call's credentials as the real services do (a JWT's
 * signature and expiry, an OAuth access token, a TC3 signature and its timestamp), with the
 * official `openai` client: what goes upstream, what the client gets, and what is billed. Model
 * ratio 1, completion ratio 2 (relay-world): a charge is prompt + 2 x completion.
 */
describe.each(backends)('signed providers (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    const channels: Array<[string, Record<string, unknown>]> = [
      [
        'zhipu',
        { type: 16, key: ZHIPU_KEY, models: 'mock-glm,mock-glm-embed', model_mapping: { 'mock-glm': 'chatglm_turbo', 'mock-glm-embed': 'text_embedding' } },
      ],
      ['zhipu-wrong', { type: 16, key: 'mock-zhipu-id.not-the-secret', models: 'mock-glm-wrong', model_mapping: { 'mock-glm-wrong': 'chatglm_turbo' } }],
      [
        'baidu',
        {
          type: 15,
          key: BAIDU_KEY,
          models: 'mock-ernie,mock-ernie-embed',
          model_mapping: { 'mock-ernie': 'ERNIE-Speed-8K', 'mock-ernie-embed': 'Embedding-V1' },
        },
      ],
      [
        'baidu-wrong',
        { type: 15, key: 'mock-baidu-api-key|not-the-secret', models: 'mock-ernie-wrong', model_mapping: { 'mock-ernie-wrong': 'ERNIE-Speed-8K' } },
      ],
      ['tencent', { type: 23, key: TENCENT_KEY, other: 'ap-guangzhou', models: 'mock-hunyuan', model_mapping: { 'mock-hunyuan': 'hunyuan-lite' } }],
      [
        'tencent-wrong',
        { type: 23, key: '1300000000|mock-secret-id|not-the-secret', models: 'mock-hunyuan-wrong', model_mapping: { 'mock-hunyuan-wrong': 'hunyuan-lite' } },
      ],
    ];
    for (const [name, { model_mapping, ...fields }] of channels)
      ids[name] = await world.addChannel({ name, ...fields, model_mapping: JSON.stringify(model_mapping) });
    const models = ['mock-glm', 'mock-glm-embed', 'mock-glm-wrong', 'mock-ernie', 'mock-ernie-embed', 'mock-ernie-wrong', 'mock-hunyuan', 'mock-hunyuan-wrong'];
    await Promise.all(models.map((model) => world.waitForModel(model)));
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const received = (path: string) => world.mock.requests.filter((entry) => entry.path === path);
  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;
  const question = 'Say hello to the gateway, please.';
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: question },
  ];

  /** Streams a chat and returns what the client saw. */
  async function streamed(model: string, includeUsage: boolean) {
    const { data: stream, response } = await client.chat.completions
      .create({ model, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}), messages })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    return { text, usage, finish, requestId: requestIdOf(response) };
  }

  /** The balance once earlier requests' charges have all been applied (it stays put for 300 ms). */
  async function settledBalance() {
    let last = await world.balance();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const now = await world.balance();
      if (now === last) return now;
      last = now;
    }
  }

  /** A refused call: the client's error, and the usage record it left (unbilled); the balance is where it was. */
  async function refused(model: string, stream = false) {
    const before = await settledBalance();
    const failure = await (async () => {
      const { data, response } = await client.chat.completions.create({ model, messages, ...(stream ? { stream: true } : {}) }).withResponse();
      if (stream) for await (const _chunk of data as AsyncIterable<unknown>) void _chunk;
      return response;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const error = failure as InstanceType<typeof OpenAI.APIError>;
    const requestId = error.headers?.get('x-oneapi-request-id') ?? null;
    await waitFor(async () => (await world.balance()) === before, 5_000, 'hold released, nothing charged');
    return { error, log: requestId ? await world.usageLog(requestId) : null };
  }

  it('Zhipu v3: chats whole and streamed with a JWT the mock verifies, billed by its usage', async () => {
    const { data: chat, response } = await client.chat.completions.create({ model: 'mock-glm', messages, top_p: 0.5 }).withResponse();
    const prompt = mockTokens(`Be brief.\n\n${question}`);
    expect(chat).toMatchObject({
      object: 'chat.completion',
      model: 'chatglm_turbo',
      choices: [{ message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
    });
    expect(chat.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });

    const upstream = received('/api/paas/v3/model-api/chatglm_turbo/invoke').at(-1)!;
    expect(upstream.body).toEqual({ prompt: [{ role: 'user', content: `Be brief.\n\n${question}` }], top_p: 0.5 });
    const claims = decodeClaims(String(upstream.headers.authorization));
    expect(claims).toEqual({ api_key: 'mock-zhipu-id', exp: expect.any(Number), timestamp: expect.any(Number) });
    expect(claims.exp).toBeGreaterThan(Date.now());
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      channel_id: ids.zhipu,
      prompt_tokens: prompt,
      completion_tokens: MOCK_COMPLETION,
      quota: prompt + 2 * MOCK_COMPLETION,
    });

    const { text, usage, finish, requestId } = await streamed('mock-glm', true);
    expect({ text, finish }).toEqual({ text: ANSWER, finish: 'stop' });
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });
    expect(received('/api/paas/v3/model-api/chatglm_turbo/sse-invoke').at(-1)!.body).toMatchObject({ incremental: true });
    const log = await world.usageLog(requestId);
    expect(log).toMatchObject({ is_stream: true, prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION, quota: prompt + 2 * MOCK_COMPLETION });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it("Zhipu v3: embeds one text through text_embedding's invoke, answered in OpenAI's shape and billed by its usage", async () => {
    const input = 'the gateway bills exactly';
    const { data: embedding, response } = await client.embeddings.create({ model: 'mock-glm-embed', input }).withResponse();
    expect(embedding.data).toHaveLength(1);
    expect(embedding.data[0]!.embedding).toHaveLength(8);
    expect(received('/api/paas/v3/model-api/text_embedding/invoke').at(-1)!.body).toEqual({ prompt: input });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ prompt_tokens: mockTokens(input), completion_tokens: 0, quota: mockTokens(input) });
    expect(embedding.usage?.prompt_tokens).toBe(mockTokens(input));
  });

  it('Zhipu v3: a wrong secret is refused with 401, charges nothing, and lets auto-ban disable the channel', async () => {
    await world.setOption('AutomaticDisableChannelEnabled', true);
    const { error, log } = await refused('mock-glm-wrong');
    expect(error.status).toBe(401);
    expect(error.message).toContain('Authorization Token非法');
    expect(log).toMatchObject({ quota: 0, channel_id: ids['zhipu-wrong'] });
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${ids['zhipu-wrong']}`, { session: world.root })).json().data.status === 3,
      10_000,
      'wrong Zhipu channel disabled',
    );
  });

  it('Baidu ERNIE: chats whole and streamed with the exchanged access token, billed by its usage', async () => {
    const { data: chat, response } = await client.chat.completions.create({ model: 'mock-ernie', messages, temperature: 0 }).withResponse();
    const prompt = mockTokens(`Be brief.${question}`);
    expect(chat.choices[0]).toMatchObject({ message: { content: ANSWER }, finish_reason: 'stop' });
    expect(chat.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });
    const upstream = received('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed').at(-1)!;
    // temperature 0 is outside ERNIE's (0, 1]: the mock refuses it, the relay sent 0.01.
    expect(upstream.body).toEqual({ messages: [{ role: 'user', content: question }], system: 'Be brief.', temperature: 0.01 });
    expect(new URL(upstream.url, world.mock.url).searchParams.get('access_token')).toMatch(/^24\./);
    expect(upstream.url).not.toContain('mock-baidu-secret-key');
    expect(JSON.stringify(upstream.headers)).not.toContain('mock-baidu-secret-key');
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ channel_id: ids.baidu, prompt_tokens: prompt, quota: prompt + 2 * MOCK_COMPLETION });

    const { text, usage, requestId } = await streamed('mock-ernie', false);
    expect(text).toBe(ANSWER);
    // The client did not ask for usage: the relay bills ERNIE's and keeps the usage chunk from the client.
    expect(usage).toBeUndefined();
    expect(received('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed').at(-1)!.body).toMatchObject({ stream: true });
    const log = await world.usageLog(requestId);
    expect(log).toMatchObject({ is_stream: true, prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('Baidu ERNIE: embeds through embeddings/embedding-v1, billed by its usage', async () => {
    const input = ['the gateway', 'bills exactly'];
    const { data: embedding, response } = await client.embeddings.create({ model: 'mock-ernie-embed', input }).withResponse();
    expect(embedding.data.map((entry) => [entry.index, entry.embedding.length])).toEqual([
      [0, 8],
      [1, 8],
    ]);
    expect(received('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1').at(-1)!.body).toEqual({ input });
    const prompt = mockTokens(input.join(''));
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ prompt_tokens: prompt, completion_tokens: 0, quota: prompt });
  });

  it('Baidu ERNIE: many requests share one token exchange, which the relay caches for the channel', async () => {
    const exchanges = () => received('/oauth/2.0/token').length;
    const burst = await world.addChannel({
      name: 'baidu-burst',
      type: 15,
      key: BAIDU_KEY,
      models: 'mock-ernie-burst',
      model_mapping: '{"mock-ernie-burst":"ERNIE-Lite-8K"}',
    });
    await world.waitForModel('mock-ernie-burst');
    const before = exchanges();
    const chatPath = '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-lite-8k';
    const ask = () => client.chat.completions.create({ model: 'mock-ernie-burst', messages: [{ role: 'user', content: 'hi' }] });
    const answers = await Promise.all(Array.from({ length: 12 }, ask));
    for (let i = 0; i < 4; i++) answers.push(await ask());
    expect(answers.every((answer) => answer.choices[0]?.message.content === ANSWER)).toBe(true);
    expect(exchanges() - before).toBe(1);
    const tokens = new Set(received(chatPath).map((entry) => new URL(entry.url, world.mock.url).searchParams.get('access_token')));
    expect(tokens.size).toBe(1);
    expect(received(chatPath)).toHaveLength(16);
    expect(burst).toBeGreaterThan(0);
  });

  it('Baidu ERNIE: a wrong secret fails the token exchange at the mock, and nothing is charged', async () => {
    const before = received('/oauth/2.0/token').length;
    const { error, log } = await refused('mock-ernie-wrong');
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_auth_failed');
    expect(error.message).toContain('the channel credential was not accepted');
    expect(log).toMatchObject({ quota: 0, channel_id: ids['baidu-wrong'] });
    const exchange = received('/oauth/2.0/token').slice(before).at(-1)!;
    expect(new URL(exchange.url, world.mock.url).searchParams.get('client_secret')).toBe('not-the-secret');
    expect(received('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed').every((entry) => !entry.url.includes('not-the-secret'))).toBe(true);
    // The token endpoint refused the credential: an authentication failure, so auto-ban disables the channel.
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${ids['baidu-wrong']!}`, { session: world.root })).json().data.status === 3,
      10_000,
      'Baidu channel with the wrong secret disabled',
    );
  });

  it('Baidu ERNIE: a token Baidu stopped taking before it expired is dropped and the request retried with a new one, the channel left enabled', async () => {
    const tokens = () => received('/oauth/2.0/token').length;
    await client.chat.completions.create({ model: 'mock-ernie', messages });
    const before = tokens();
    // Baidu forgets every token it issued (110 "Access token invalid or no longer valid", inside HTTP 200).
    (world.mock.state.baiduTokens as Map<string, number>).clear();
    // The relay drops its token and asks again on the same channel with a new one: the client never sees it.
    const { data: chat } = await client.chat.completions.create({ model: 'mock-ernie', messages }).withResponse();
    expect(chat.choices[0]?.message.content).toBe(ANSWER);
    expect(tokens()).toBe(before + 1);
    // Not the channel's failure: it stays enabled.
    expect((await world.gateway.call('GET', `/api/channel/${ids.baidu!}`, { session: world.root })).json().data.status).toBe(1);
  });

  it('Tencent Hunyuan: chats whole and streamed with TC3 signatures the mock recomputes, billed by its usage', async () => {
    const { data: chat, response } = await client.chat.completions.create({ model: 'mock-hunyuan', messages, temperature: 1.5 }).withResponse();
    const prompt = mockTokens(`Be brief.${question}`);
    expect(chat.choices[0]).toMatchObject({ message: { content: ANSWER }, finish_reason: 'stop' });
    expect(chat.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });
    const upstream = received('/').at(-1)!;
    expect(upstream.body).toEqual({
      Model: 'hunyuan-lite',
      Messages: [
        { Role: 'system', Content: 'Be brief.' },
        { Role: 'user', Content: question },
      ],
      Stream: false,
      Temperature: 1.5,
    });
    expect(upstream.headers).toMatchObject({ 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'x-tc-region': 'ap-guangzhou' });
    expect(upstream.headers.authorization).toMatch(
      /^TC3-HMAC-SHA256 Credential=mock-secret-id\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/,
    );
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ channel_id: ids.tencent, prompt_tokens: prompt, quota: prompt + 2 * MOCK_COMPLETION });

    const { text, usage, finish, requestId } = await streamed('mock-hunyuan', true);
    expect({ text, finish }).toEqual({ text: ANSWER, finish: 'stop' });
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });
    expect(received('/').at(-1)!.body).toMatchObject({ Stream: true });
    const log = await world.usageLog(requestId);
    expect(log).toMatchObject({ is_stream: true, prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION, quota: prompt + 2 * MOCK_COMPLETION });
  });

  it('Tencent Hunyuan: a wrong secret is refused as an authentication failure, streamed and whole, nothing is charged, and auto-ban disables the channel', async () => {
    const { error: streamError, log: streamLog } = await refused('mock-hunyuan-wrong', true);
    expect(streamError.message).toContain('The provided credentials could not be validated');
    expect(streamLog).toMatchObject({ quota: 0, completion_tokens: 0 });

    // Tencent answers the error inside HTTP 200: the relay still takes it as the channel's failure.
    const { error, log } = await refused('mock-hunyuan-wrong');
    expect(error.status).toBe(401);
    expect(error.code).toBe('AuthFailure.SignatureFailure');
    expect(log).toMatchObject({ quota: 0 });
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${ids['tencent-wrong']!}`, { session: world.root })).json().data.status === 3,
      10_000,
      'Tencent channel with the wrong secret disabled',
    );
  });

  it('tests each channel through its signed protocol', async () => {
    const test = async (id: number) => (await world.gateway.call('POST', `/api/channel/test/${id}`, { session: world.root })).json();
    for (const name of ['zhipu', 'baidu', 'tencent']) expect(await test(ids[name]!)).toMatchObject({ success: true });
    expect(await test(ids['tencent-wrong']!)).toMatchObject({ success: false, message: expect.stringContaining('could not be validated') });
  });
});

/**
 * The mock's routes refuse what the real services refuse, so a relay test that passes proves the
 * signing: the providers' own signers against the fakes, with the credentials and the clock wrong.
 */
describe('the signed protocols, checked by the mock as the services check them', () => {
  let mock: MockUpstream;
  beforeAll(async () => {
    mock = await startMockUpstream({ maxRecorded: 0 });
  });
  afterAll(async () => {
    await mock.close();
  });

  const post = async (path: string, headers: Record<string, string>, body: string) => {
    const sent = new Headers(headers);
    if (!sent.has('content-type')) sent.set('content-type', 'application/json');
    const response = await fetch(`${mock.url}${path}`, { method: 'POST', headers: sent, body });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };

  it('Zhipu: a JWT is accepted only with the key secret and before it expires', async () => {
    const path = '/api/paas/v3/model-api/chatglm_turbo/invoke';
    const body = JSON.stringify({ prompt: [{ role: 'user', content: 'hi' }] });
    expect(await post(path, { authorization: zhipuToken(ZHIPU_KEY, Date.now()) }, body)).toMatchObject({ status: 200, json: { success: true } });
    expect(await post(path, { authorization: zhipuToken('mock-zhipu-id.another-secret', Date.now()) }, body)).toMatchObject({
      status: 401,
      json: { code: 1002 },
    });
    expect(await post(path, { authorization: zhipuToken(ZHIPU_KEY, Date.now() - 10 * 60_000) }, body)).toMatchObject({ status: 401, json: { code: 1003 } });
    expect(await post(path, {}, body)).toMatchObject({ status: 401, json: { code: 1001 } });
  });

  it('Baidu: chat needs a token the token endpoint issued, which issues one only for the right pair', async () => {
    const chat = '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed';
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
    expect((await post(chat, {}, body)).json).toEqual({ error_code: 100, error_msg: 'Invalid parameter' });
    expect((await post(`${chat}?access_token=24.forged`, {}, body)).json).toEqual({ error_code: 110, error_msg: 'Access token invalid or no longer valid' });
    const exchange = (query: string) => post(`/oauth/2.0/token?grant_type=client_credentials&${query}`, {}, '{}');
    expect(await exchange('client_id=someone&client_secret=x')).toMatchObject({
      status: 401,
      json: { error: 'invalid_client', error_description: 'unknown client id' },
    });
    expect(await exchange('client_id=mock-baidu-api-key&client_secret=x')).toMatchObject({
      status: 401,
      json: { error_description: 'Client authentication failed' },
    });
    const issued = await exchange('client_id=mock-baidu-api-key&client_secret=mock-baidu-secret-key');
    expect(issued).toMatchObject({ status: 200, json: { expires_in: 2_592_000, access_token: expect.stringMatching(/^24\./) } });
    expect((await post(`${chat}?access_token=${issued.json.access_token}`, {}, body)).json).toMatchObject({ result: ANSWER });
  });

  it('Tencent: the signature is recomputed from the SecretKey: a tampered body, a stale timestamp and an unknown SecretId are refused', async () => {
    const ctx = context({ channel: channel({ type: 23, base_url: mock.url }), upstreamModel: 'hunyuan-lite' });
    const built = tencentProvider.chat.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx);
    const send = async (request: typeof built) => (await post('/', request.headers, request.body!)).json.Response;
    const now = Math.floor(Date.now() / 1000);
    const signed = (secretId: string, secretKey: string, timestamp = now) =>
      signTc3(built, { service: 'hunyuan', secretId, secretKey, timestamp, signedHeaders: ['x-tc-action'] });
    expect(await send(signed('mock-secret-id', 'mock-secret-key'))).toMatchObject({ Choices: [{ Message: { Content: ANSWER } }] });
    expect((await send({ ...signed('mock-secret-id', 'mock-secret-key'), body: built.body!.replace('hi', 'ho') })).Error.Code).toBe(
      'AuthFailure.SignatureFailure',
    );
    expect((await send(signed('mock-secret-id', 'wrong-key'))).Error.Code).toBe('AuthFailure.SignatureFailure');
    expect((await send(signed('mock-secret-id', 'mock-secret-key', now - 600))).Error.Code).toBe('AuthFailure.SignatureExpire');
    expect((await send(signed('someone-else', 'mock-secret-key'))).Error.Code).toBe('AuthFailure.SecretIdNotFound');
  });
});
