import OpenAI from 'openai';
// relay-world loads the mock's server before its route modules (they import each other).
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';
import { codexAccessToken, CODEX_CLIENT_ID } from '../../../tools/mock-upstream/routes/codex.mjs';

jest.setTimeout(60_000);

/** The mock's count (tools/mock-upstream/README.md): ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);
const MOCK_COMPLETION = 4;
const MOCK_ANSWER = 'hello hello hello hello';
const COZE_TOKEN = 'pat_mock-coze-token';
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The established product's newer channel types through the relay, against the mock's Coze and
 * ChatGPT-backend routes, with the official `openai` client: Coze (49) bots, whole and streamed;
 * SubModel (53), OpenAI-compatible; Codex (57) on the Responses API with its token refreshed at
 * the (fake) OpenAI token endpoint; and a video task channel (Kling, 50), which loads and lists
 * but is never routed a chat. Model ratio 1, completion ratio 2 (relay-world): a charge is
 * prompt + 2 x completion.
 */
describe.each(backends)('newer providers (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  let cozeChannel: number;
  let klingChannel: number;
  let codexFresh: number;

  /** A Codex key whose stored access token is good until `expiresAt` (epoch seconds), refreshed at the mock. */
  const codexKey = (expiresAt: number) =>
    JSON.stringify({
      access_token: codexAccessToken('mock-account', expiresAt),
      refresh_token: 'mock-codex-refresh',
      account_id: 'mock-account',
      token_url: `${world.mock.url}/oauth/token`,
    });

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    cozeChannel = await world.addChannel({ name: 'coze', type: 49, key: COZE_TOKEN, models: 'mock-coze,mock-coze@incomplete' });
    // A bot whose token Coze refuses (4100, answered with status 200 in place of the stream); apart, since auto-ban disables it.
    await world.addChannel({ name: 'coze refused', type: 49, key: COZE_TOKEN, models: 'mock-coze@refuse=4100' });
    await world.addChannel({ name: 'submodel', type: 53, models: 'mock-submodel' });
    // The stored access token has expired: the first call refreshes it. The other's is good for an hour.
    await world.addChannel({ name: 'codex', type: 57, key: codexKey(nowSeconds() - 60), models: 'mock-codex' });
    codexFresh = await world.addChannel({ name: 'codex fresh', type: 57, key: codexKey(nowSeconds() + 3600), models: 'mock-codex-fresh' });
    // A video task channel as the established product stores it: it must load, and serves no chat.
    klingChannel = await world.addChannel({ name: 'kling', type: 50, key: 'kling-access-key|kling-secret-key', base_url: '', models: 'mock-kling-video' });
    const models = ['mock-coze', 'mock-coze@incomplete', 'mock-coze@refuse=4100', 'mock-submodel', 'mock-codex', 'mock-codex-fresh', 'mock-kling-video'];
    await Promise.all(models.map((model) => world.waitForModel(model)));
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const received = (path: string) => world.mock.requests.filter((entry) => entry.path === path);
  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;

  it('chats with a Coze bot: the conversation as additional messages, always streamed upstream, folded into one answer and billed by its usage', async () => {
    const question = 'Which city is the capital of Zhejiang?';
    const { data: chat, response } = await client.chat.completions
      .create({
        model: 'mock-coze',
        user: 'customer-7',
        temperature: 0.3,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: question },
        ],
      })
      .withResponse();
    expect(chat).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: MOCK_ANSWER }, finish_reason: 'stop' }] });
    const prompt = mockTokens(`Be brief.\n\n${question}`);
    expect(chat.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });

    const upstream = received('/v3/chat').at(-1)!;
    expect(upstream.headers.authorization).toBe(`Bearer ${COZE_TOKEN}`);
    // temperature is the bot's to set: dropped (and logged as a warning).
    expect(upstream.body).toEqual({
      bot_id: 'mock-coze',
      user_id: 'customer-7',
      stream: true,
      additional_messages: [{ role: 'user', type: 'question', content: `Be brief.\n\n${question}`, content_type: 'text' }],
    });
    const log = await world.usageLog(requestIdOf(response));
    expect(log).toMatchObject({
      channel_id: cozeChannel,
      is_stream: false,
      prompt_tokens: prompt,
      completion_tokens: MOCK_COMPLETION,
      quota: prompt + 2 * MOCK_COMPLETION,
    });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it("streams a Coze bot's answer, the usage shown only when asked, and bills the chat's usage", async () => {
    const question = 'Stream me a greeting';
    for (const includeUsage of [true, false]) {
      const { data: stream, response } = await client.chat.completions
        .create({
          model: 'mock-coze',
          stream: true,
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
          messages: [{ role: 'user', content: question }],
        })
        .withResponse();
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(MOCK_ANSWER);
      if (includeUsage) expect(usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
      else expect(usage).toBeUndefined();
      expect(received('/v3/chat').at(-1)!.body).toMatchObject({ stream: true, user_id: expect.stringMatching(/^aigw-/) });
      const log = await world.usageLog(requestIdOf(response));
      expect(log).toMatchObject({ is_stream: true, prompt_tokens: mockTokens(question), quota: mockTokens(question) + 2 * MOCK_COMPLETION });
      expect(JSON.parse(log.other).usage_source).toBe('upstream');
    }
  });

  it('reports a Coze chat that failed mid-stream to the client, and bills what was streamed', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'mock-coze@incomplete', stream: true, messages: [{ role: 'user', content: 'Tell me a long story' }] })
      .withResponse();
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((error: unknown) => error);
    expect(text).toBe('hello');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ error: { message: 'mock upstream: the bot failed mid-answer', code: '5000', type: 'server_error' } });
    const log = await world.usageLog(requestIdOf(response));
    expect(log.content).toContain('upstream error in stream');
    expect(log).toMatchObject({ completion_tokens: 1, quota: log.prompt_tokens + 2 });
    expect(JSON.parse(log.other).usage_source).toBe('estimated');
  });

  it('answers a token Coze refused (its {code, msg} with status 200) as the authentication failure it is, charging nothing', async () => {
    const failure = await client.chat.completions
      .create({ model: 'mock-coze@refuse=4100', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const apiError = failure as InstanceType<typeof OpenAI.APIError>;
    expect(apiError).toMatchObject({ status: 401, error: { message: expect.stringContaining('mock upstream: refused with 4100 as asked'), code: '4100' } });
    expect(await world.usageLog(apiError.headers!.get('x-oneapi-request-id')!)).toMatchObject({ quota: 0 });
  });

  it('tests a Coze channel with a one-word chat, the stream it answers folded', async () => {
    const test = (await world.gateway.call('POST', `/api/channel/test/${cozeChannel}`, { session: world.root })).json();
    expect(test).toMatchObject({ success: true });
    expect(received('/v3/chat').at(-1)!.body).toMatchObject({
      bot_id: 'mock-coze',
      stream: true,
      additional_messages: [{ role: 'user', type: 'question', content: 'hi', content_type: 'text' }],
    });
  });

  it('chats with SubModel, an OpenAI-compatible upstream', async () => {
    const question = 'What is SubModel?';
    const { data: chat, response } = await client.chat.completions
      .create({ model: 'mock-submodel', messages: [{ role: 'user', content: question }] })
      .withResponse();
    expect(chat.choices[0]?.message.content).toBe(MOCK_ANSWER);
    const upstream = received('/v1/chat/completions').at(-1)!;
    expect(upstream.headers.authorization).toBe('Bearer mock-key');
    expect(upstream.body).toEqual({ model: 'mock-submodel', messages: [{ role: 'user', content: question }] });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      prompt_tokens: mockTokens(question),
      completion_tokens: MOCK_COMPLETION,
      quota: mockTokens(question) + 2 * MOCK_COMPLETION,
    });
  });

  it('streams Responses through a Codex channel, refreshing its expired token once at the token endpoint, and bills the usage', async () => {
    const input = 'Write a haiku about diffs.';
    for (let round = 0; round < 2; round++) {
      const { data: stream, response } = await client.responses.create({ model: 'mock-codex', input, stream: true, temperature: 0.2 }).withResponse();
      let text = '';
      let usage: OpenAI.Responses.ResponseUsage | undefined;
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') usage = event.response.usage;
      }
      expect(text).toBe(MOCK_ANSWER);
      expect(usage).toMatchObject({ input_tokens: mockTokens(input), output_tokens: MOCK_COMPLETION });
      expect(await world.usageLog(requestIdOf(response))).toMatchObject({
        is_stream: true,
        prompt_tokens: mockTokens(input),
        completion_tokens: MOCK_COMPLETION,
        quota: mockTokens(input) + 2 * MOCK_COMPLETION,
      });
      // One refresh for both rounds: the relay caches the refreshed token.
      const refreshes = received('/oauth/token');
      expect(refreshes).toHaveLength(1);
      expect(refreshes[0]!.body).toEqual({ grant_type: 'refresh_token', refresh_token: 'mock-codex-refresh', client_id: CODEX_CLIENT_ID });
      const upstream = received('/backend-api/codex/responses').at(-1)!;
      expect(upstream.headers).toMatchObject({ 'chatgpt-account-id': 'mock-account', originator: 'codex_cli_rs', 'openai-beta': 'responses=experimental' });
      // temperature is refused by the backend: dropped (and logged as a warning).
      expect(upstream.body).toEqual({ model: 'mock-codex', input, stream: true, store: false, instructions: '' });
    }
  });

  it("sends a Codex channel's stored token while it is good, with no refresh", async () => {
    const before = received('/oauth/token').length;
    const stream = await client.responses.create({ model: 'mock-codex-fresh', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.completed');
    expect(received('/oauth/token')).toHaveLength(before);
  });

  it('answers a Codex request that does not stream with the response its stream ends with, billed by its usage', async () => {
    const input = 'Summarise the diff.';
    const { data: answer, response } = await client.responses.create({ model: 'mock-codex-fresh', input }).withResponse();
    expect(answer).toMatchObject({ object: 'response', status: 'completed', usage: { input_tokens: mockTokens(input), output_tokens: MOCK_COMPLETION } });
    expect(answer.output_text).toBe(MOCK_ANSWER);
    expect(received('/backend-api/codex/responses').at(-1)!.body).toMatchObject({ stream: true, store: false });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      is_stream: false,
      prompt_tokens: mockTokens(input),
      completion_tokens: MOCK_COMPLETION,
      quota: mockTokens(input) + 2 * MOCK_COMPLETION,
    });

    // The channel test asks for a response to one word the same way.
    const tested = (await world.gateway.call('POST', `/api/channel/test/${codexFresh}`, { session: world.root })).json();
    expect(tested).toMatchObject({ success: true });
    expect(received('/backend-api/codex/responses').at(-1)!.body).toMatchObject({ input: 'hi', stream: true });
  });

  it('loads a video task channel (Kling, 50) and lists it, but routes it no chat', async () => {
    const list = (await world.gateway.call('GET', '/api/channel/?p=1&page_size=100', { session: world.root })).json();
    expect(list.data.items).toContainEqual(expect.objectContaining({ id: klingChannel, type: 50, name: 'kling', models: 'mock-kling-video' }));
    const failure = await client.chat.completions
      .create({ model: 'mock-kling-video', messages: [{ role: 'user', content: 'a cat video' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ status: 503, error: { code: 'no_capable_channel' } });
  });
});
