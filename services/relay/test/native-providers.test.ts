import OpenAI from 'openai';
import { waitFor } from '@aigw/platform/testing';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's count (tools/mock-upstream/README.md): ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);
const MOCK_COMPLETION = 4;
const ACCOUNT = 'acc-7c1e';

/**
 * Cohere (34) and Cloudflare Workers AI (39) channels through the relay, against the mock's
 * Cohere and Cloudflare routes, with the official `openai` client (plain fetch for /v1/rerank):
 * what goes upstream, what the client gets, and what is billed. Model ratio 1, completion ratio 2
 * (relay-world): a charge is prompt + 2 x completion.
 */
describe.each(backends)('native providers (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  let cohereChannel: number;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    cohereChannel = await world.addChannel({
      name: 'cohere',
      type: 34,
      models: 'mock-cohere,mock-cohere-rerank,mock-cohere-refused,mock-cohere-embed',
      model_mapping: JSON.stringify({ 'mock-cohere-refused': 'mock-cohere@status=400' }),
    });
    await world.addChannel({ name: 'cloudflare', type: 39, other: ACCOUNT, models: 'mock-cf,mock-cf-embed' });
    await world.addChannel({ name: 'jina', type: 38, models: 'mock-jina-embed,mock-jina-rerank' });
    await Promise.all(
      ['mock-cohere', 'mock-cohere-rerank', 'mock-cohere-embed', 'mock-cf', 'mock-cf-embed', 'mock-jina-embed', 'mock-jina-rerank'].map((model) =>
        world.waitForModel(model),
      ),
    );
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const received = (path: string) => world.mock.requests.filter((entry) => entry.path === path);
  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;

  it('chats with Cohere v2, whole and streamed, and bills the billed units (not the template tokens)', async () => {
    const question = 'Say hello to the gateway, please.';
    const { data: chat, response } = await client.chat.completions
      .create({
        model: 'mock-cohere',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: question },
        ],
        top_p: 0.5,
      })
      .withResponse();
    const prompt = mockTokens('Be brief.' + question);
    expect(chat).toMatchObject({
      object: 'chat.completion',
      model: 'mock-cohere',
      choices: [{ message: { role: 'assistant', content: 'hello hello hello hello' } }],
    });
    expect(chat.choices[0]?.finish_reason).toBe('stop');
    expect(chat.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });

    const upstream = received('/v2/chat').at(-1)!;
    expect(upstream.headers.authorization).toBe('Bearer mock-key');
    expect(upstream.body).toEqual({
      model: 'mock-cohere',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: question },
      ],
      p: 0.5,
    });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      channel_id: cohereChannel,
      prompt_tokens: prompt,
      completion_tokens: MOCK_COMPLETION,
      quota: prompt + 2 * MOCK_COMPLETION,
    });

    const { data: stream, response: streamed } = await client.chat.completions
      .create({ model: 'mock-cohere', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: question }] })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('hello hello hello hello');
    expect(usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
    expect(received('/v2/chat').at(-1)!.body).toMatchObject({ stream: true });
    const log = await world.usageLog(requestIdOf(streamed));
    expect(log).toMatchObject({ is_stream: true, prompt_tokens: mockTokens(question), quota: mockTokens(question) + 2 * MOCK_COMPLETION });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it("passes Cohere's error message to the client and charges nothing", async () => {
    const before = await world.balance();
    await expect(client.chat.completions.create({ model: 'mock-cohere-refused', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 400,
      error: { message: expect.stringMatching(/^mock upstream: status 400 as asked/) },
    });
    await waitFor(async () => (await world.balance()) === before, 5_000, 'hold released');
  });

  it("embeds through Cohere v2 embed, answered in OpenAI's shape and billed by its billed units", async () => {
    const input = ['the gateway', 'bills exactly'];
    const { data: embedding, response } = await client.embeddings.create({ model: 'mock-cohere-embed', input }).withResponse();
    expect(embedding.object).toBe('list');
    expect(embedding.data.map((entry) => entry.index)).toEqual([0, 1]);
    expect(embedding.data[0]!.embedding.length).toBeGreaterThan(0);
    expect(received('/v2/embed').at(-1)!.body).toMatchObject({ model: 'mock-cohere-embed', texts: input, input_type: 'search_document' });
    const log = await world.usageLog(requestIdOf(response));
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log).toMatchObject({ completion_tokens: 0, quota: log.prompt_tokens });
    expect(embedding.usage?.prompt_tokens).toBe(log.prompt_tokens);
  });

  it('embeds and reranks through Jina, which has no chat', async () => {
    const { data: embedding, response } = await client.embeddings.create({ model: 'mock-jina-embed', input: 'hello jina' }).withResponse();
    expect(embedding.data).toHaveLength(1);
    expect((await world.usageLog(requestIdOf(response))).prompt_tokens).toBeGreaterThan(0);
    const reranked = await fetch(`${world.baseUrl}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-jina-rerank', query: 'sea', documents: ['the sea', 'a desk'] }),
    });
    expect(reranked.status).toBe(200);
    expect(((await reranked.json()) as { results: unknown[] }).results).toHaveLength(2);
    // Chat is not served by a Jina channel: no capable channel for a chat of its model.
    const chat = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-jina-embed', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(503);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('no_capable_channel');
  });

  it('reranks through Cohere v2 rerank (plain fetch), billing the tokens counted here', async () => {
    const query = 'gateway billing';
    const documents = ['a poem about the sea', { text: 'the gateway bills every request' }, 'billing of a gateway, exactly'];
    const response = await fetch(`${world.baseUrl}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-cohere-rerank', query, documents, top_n: 2 }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { results: Array<{ index: number; relevance_score: number; document?: { text: string } }> };
    expect(answer.results.map((result) => result.index)).toEqual([2, 1]);
    // In Jina's shape, the documents put back.
    expect(answer.results.map((result) => result.document?.text)).toEqual(['billing of a gateway, exactly', 'the gateway bills every request']);
    expect(answer.results[0]!.relevance_score).toBeGreaterThan(answer.results[1]!.relevance_score);
    expect(received('/v2/rerank').at(-1)!.body).toEqual({
      model: 'mock-cohere-rerank',
      query,
      documents: ['a poem about the sea', 'the gateway bills every request', 'billing of a gateway, exactly'],
      top_n: 2,
    });
    // Cohere bills search units, not tokens: the relay counts the query once per document plus the documents.
    const log = await world.usageLog(requestIdOf(response));
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log).toMatchObject({ completion_tokens: 0, quota: log.prompt_tokens });
    expect(JSON.parse(log.other).usage_source).toBe('estimated');
  });

  it("chats with Cloudflare Workers AI under the channel's account, whole and streamed (usage asked for), and embeds", async () => {
    const base = `/client/v4/accounts/${ACCOUNT}/ai/v1`;
    const question = 'Make some robot noises';
    const { data: chat, response } = await client.chat.completions.create({ model: 'mock-cf', messages: [{ role: 'user', content: question }] }).withResponse();
    expect(chat.choices[0]?.message.content).toBe('hello hello hello hello');
    expect(chat.usage).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
    expect(received(`${base}/chat/completions`).at(-1)!.headers.authorization).toBe('Bearer mock-key');
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ quota: mockTokens(question) + 2 * MOCK_COMPLETION });

    // The client did not ask for usage: the relay asks Cloudflare for it, bills it, and keeps the usage chunk from the client.
    const { data: stream, response: streamed } = await client.chat.completions
      .create({ model: 'mock-cf', stream: true, messages: [{ role: 'user', content: question }] })
      .withResponse();
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe('hello hello hello hello');
    expect(sawUsage).toBe(false);
    expect(received(`${base}/chat/completions`).at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const log = await world.usageLog(requestIdOf(streamed));
    expect(log).toMatchObject({ prompt_tokens: mockTokens(question), completion_tokens: MOCK_COMPLETION });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');

    const input = 'I love matcha';
    const { data: embedding, response: embedded } = await client.embeddings.create({ model: 'mock-cf-embed', input }).withResponse();
    expect(embedding.data[0]?.embedding).toHaveLength(8);
    expect(received(`${base}/embeddings`).at(-1)!.body).toMatchObject({ model: 'mock-cf-embed', input, encoding_format: 'base64' });
    expect(await world.usageLog(requestIdOf(embedded))).toMatchObject({ prompt_tokens: mockTokens(input), completion_tokens: 0, quota: mockTokens(input) });
  });

  it('tests a Cohere channel through its protocol, and names the missing account id of a Cloudflare one', async () => {
    const test = async (id: number) => (await world.gateway.call('POST', `/api/channel/test/${id}`, { session: world.root })).json();
    expect(await test(cohereChannel)).toMatchObject({ success: true });
    expect(received('/v2/chat').at(-1)!.body).toMatchObject({ model: 'mock-cohere', max_tokens: 16 });

    // Cloudflare's catalogue for "fetch models".
    const cloudflare = await world.addChannel({ name: 'cloudflare listed', type: 39, other: ACCOUNT, models: 'mock-cf-listed' });
    const listed = (await world.gateway.call('GET', `/api/channel/fetch_models/${cloudflare}`, { session: world.root })).json();
    // The channels service sorts the list.
    expect(listed).toMatchObject({ success: true, data: ['@cf/baai/bge-base-en-v1.5', '@cf/meta/llama-3.1-8b-instruct'] });
    expect(received(`/client/v4/accounts/${ACCOUNT}/ai/models/search`).at(-1)!.headers.authorization).toBe('Bearer mock-key');

    const noAccount = await world.addChannel({ name: 'cloudflare without account', type: 39, models: 'mock-cf-orphan' });
    expect(await test(noAccount)).toMatchObject({ success: false, message: expect.stringContaining('has no account id') });
    // A client's request finds the channel unusable and gets a clear answer, not an internal error.
    await world.waitForModel('mock-cf-orphan');
    const orphan = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-cf-orphan', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(orphan.status).toBe(502);
    expect(await orphan.json()).toMatchObject({
      error: { code: 'channel_account_id_missing', message: expect.stringMatching(/^the channel is not configured completely/) },
    });
    // A Jina channel is tested with an embedding, having no chat.
    const jina = await world.addChannel({ name: 'jina tested', type: 38, models: 'mock-jina-probe' });
    expect(await test(jina)).toMatchObject({ success: true });
    expect(received('/v1/embeddings').at(-1)!.body).toMatchObject({ model: 'mock-jina-probe', input: 'hi' });
  });
});
