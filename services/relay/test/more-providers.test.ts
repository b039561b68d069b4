import OpenAI from 'openai';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's count (tools/mock-upstream/README.md): ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);
const MOCK_COMPLETION = 4;
const MOCK_ANSWER = 'hello hello hello hello';

/**
 * Alibaba DashScope (17) and Dify (37) channels through the relay, against the mock's DashScope
 * and Dify routes, with the official `openai` client (plain fetch for /v1/rerank): what goes
 * upstream, what the client gets, and what is billed. Model ratio 1, completion ratio 2
 * (relay-world): a charge is prompt + 2 x completion.
 */
describe.each(backends)('more providers (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  let difyChannel: number;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    await world.addChannel({ name: 'dashscope', type: 17, models: 'mock-qwen,mock-qwen-embed,mock-qwen-rerank' });
    difyChannel = await world.addChannel({ name: 'dify', type: 37, models: 'mock-dify' });
    // A Dify app whose model fails after its first chunk (the mock's `incomplete`, asked through the body as param_override can).
    await world.addChannel({ name: 'dify failing', type: 37, models: 'mock-dify-failing', param_override: JSON.stringify({ mock: 'incomplete' }) });
    await Promise.all(['mock-qwen', 'mock-qwen-embed', 'mock-qwen-rerank', 'mock-dify', 'mock-dify-failing'].map((model) => world.waitForModel(model)));
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const received = (path: string) => world.mock.requests.filter((entry) => entry.path === path);
  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;

  it("chats with DashScope's compatible mode, whole and streamed (usage asked for on the client's behalf)", async () => {
    const path = '/compatible-mode/v1/chat/completions';
    const question = 'Which city is the capital of Zhejiang?';
    const { data: chat, response } = await client.chat.completions
      .create({ model: 'mock-qwen', messages: [{ role: 'user', content: question }], top_p: 0.8 })
      .withResponse();
    expect(chat.choices[0]?.message.content).toBe(MOCK_ANSWER);
    expect(chat.usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
    const upstream = received(path).at(-1)!;
    expect(upstream.headers.authorization).toBe('Bearer mock-key');
    expect(upstream.body).toEqual({ model: 'mock-qwen', messages: [{ role: 'user', content: question }], top_p: 0.8 });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      prompt_tokens: mockTokens(question),
      completion_tokens: MOCK_COMPLETION,
      quota: mockTokens(question) + 2 * MOCK_COMPLETION,
    });

    const { data: stream, response: streamed } = await client.chat.completions
      .create({ model: 'mock-qwen', stream: true, messages: [{ role: 'user', content: question }] })
      .withResponse();
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe(MOCK_ANSWER);
    expect(sawUsage).toBe(false);
    expect(received(path).at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const log = await world.usageLog(requestIdOf(streamed));
    expect(log).toMatchObject({ is_stream: true, prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('embeds through the compatible mode in floats, giving the openai client the base64 it asked for, billed by the upstream usage', async () => {
    const input = ['west lake', 'longjing tea'];
    const { data: embedding, response } = await client.embeddings.create({ model: 'mock-qwen-embed', input }).withResponse();
    expect(embedding.data.map((entry) => entry.index)).toEqual([0, 1]);
    // The mock's deterministic vectors ((i + 1) * (d + 3) % 17 / 17), decoded by the client from our base64.
    expect(embedding.data[1]!.embedding).toHaveLength(8);
    expect(embedding.data[1]!.embedding.slice(0, 2)).toEqual([Math.fround(6 / 17), Math.fround(8 / 17)]);
    expect(received('/compatible-mode/v1/embeddings').at(-1)!.body).toEqual({ model: 'mock-qwen-embed', input, encoding_format: 'float' });
    const prompt = mockTokens(input.join(''));
    expect(embedding.usage?.prompt_tokens).toBe(prompt);
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ prompt_tokens: prompt, completion_tokens: 0, quota: prompt });
  });

  it("reranks through DashScope's text-rerank service (plain fetch), billing its token count", async () => {
    const query = 'tea from west lake';
    const documents = ['a poem about the sea', { text: 'longjing tea grows by west lake' }, 'lake tea'];
    const response = await fetch(`${world.baseUrl}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-qwen-rerank', query, documents, top_n: 2 }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { results: Array<{ index: number; relevance_score: number; document?: { text: string } }> };
    expect(answer.results.map((result) => [result.index, result.document?.text])).toEqual([
      [1, 'longjing tea grows by west lake'],
      [2, 'lake tea'],
    ]);
    expect(answer.results[0]!.relevance_score).toBeGreaterThan(answer.results[1]!.relevance_score);
    const upstream = received('/api/v1/services/rerank/text-rerank/text-rerank').at(-1)!;
    expect(upstream.headers.authorization).toBe('Bearer mock-key');
    expect(upstream.body).toEqual({
      model: 'mock-qwen-rerank',
      input: { query, documents: ['a poem about the sea', 'longjing tea grows by west lake', 'lake tea'] },
      parameters: { return_documents: true, top_n: 2 },
    });
    // DashScope's usage.total_tokens (the mock counts the query once per document plus the documents).
    const tokens = mockTokens(query.repeat(3) + 'a poem about the sea' + 'longjing tea grows by west lake' + 'lake tea');
    const log = await world.usageLog(requestIdOf(response));
    expect(log).toMatchObject({ prompt_tokens: tokens, completion_tokens: 0, quota: tokens });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('chats with a Dify app, a new conversation each time with the history in the query, billing its usage', async () => {
    const question = 'What does the gateway do?';
    const { data: chat, response } = await client.chat.completions
      .create({
        model: 'mock-dify',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: question },
        ],
        temperature: 0.2,
      })
      .withResponse();
    expect(chat).toMatchObject({ object: 'chat.completion', model: 'mock-dify', choices: [{ message: { role: 'assistant', content: MOCK_ANSWER } }] });
    const query = `System: Be brief.\n\nUser: ${question}`;
    expect(chat.usage).toMatchObject({ prompt_tokens: mockTokens(query), completion_tokens: MOCK_COMPLETION });
    const upstream = received('/v1/chat-messages').at(-1)!;
    expect(upstream.headers.authorization).toBe('Bearer mock-key');
    // temperature is the app's to set: dropped (and logged as a warning).
    expect(upstream.body).toEqual({ inputs: {}, query, response_mode: 'blocking', user: 'aigw', conversation_id: '' });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      channel_id: difyChannel,
      prompt_tokens: mockTokens(query),
      completion_tokens: MOCK_COMPLETION,
      quota: mockTokens(query) + 2 * MOCK_COMPLETION,
    });
  });

  it("streams a Dify chatflow's answer without its workflow events, billed from message_end, the usage shown only when asked", async () => {
    const question = 'Stream me a greeting';
    for (const includeUsage of [true, false]) {
      const { data: stream, response } = await client.chat.completions
        .create({
          model: 'mock-dify',
          stream: true,
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
          messages: [{ role: 'user', content: question }],
        })
        .withResponse();
      let text = '';
      let reasoning = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(MOCK_ANSWER);
      expect(reasoning).toBe('');
      if (includeUsage) expect(usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
      else expect(usage).toBeUndefined();
      expect(received('/v1/chat-messages').at(-1)!.body).toMatchObject({ query: question, response_mode: 'streaming' });
      const log = await world.usageLog(requestIdOf(response));
      expect(log).toMatchObject({ is_stream: true, prompt_tokens: mockTokens(question), quota: mockTokens(question) + 2 * MOCK_COMPLETION });
      expect(JSON.parse(log.other).usage_source).toBe('upstream');
    }
  });

  it('reports a Dify error event in the middle of a stream to the client, and bills what was streamed', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'mock-dify-failing', stream: true, messages: [{ role: 'user', content: 'Tell me a long story' }] })
      .withResponse();
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((error: unknown) => error);
    expect(text).toBe('hello');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ error: { message: 'mock upstream: the model failed mid-answer', code: 'completion_request_error' } });
    // One record, saying the stream broke: no usage came (no message_end), so the streamed word is counted.
    const log = await world.usageLog(requestIdOf(response));
    expect(log.content).toContain('upstream error in stream');
    expect(log.completion_tokens).toBe(1);
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log.quota).toBe(log.prompt_tokens + 2);
    expect(JSON.parse(log.other).usage_source).toBe('estimated');
  });

  it('tests a Dify channel with a blocking chat', async () => {
    const test = (await world.gateway.call('POST', `/api/channel/test/${difyChannel}`, { session: world.root })).json();
    expect(test).toMatchObject({ success: true });
    expect(received('/v1/chat-messages').at(-1)!.body).toEqual({ inputs: {}, query: 'hi', response_mode: 'blocking', user: 'aigw', conversation_id: '' });
  });
});
