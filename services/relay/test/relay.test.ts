import OpenAI from 'openai';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { reconcile } from '../../billing/src/reconcile';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(120_000);

describe.each(backends)('relay (%s)', (backend) => {
  let world: RelayWorld;
  let billing: DataSource;
  let client: OpenAI;
  let mainChannel: number;

  beforeAll(async () => {
    world = await startRelayWorld(backend, { userQuota: 10_000_000 });
    billing = await openBillingDatabase(world.gateway.env);
    await world.setOption('RetryTimes', 2);
    mainChannel = await world.addChannel({ name: 'main', models: 'mock-gpt,mock-embed,mock-stream', priority: 0 });
    await world.waitForModel('mock-gpt');
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const logsOf = (where: { user_id?: number; model_name?: string }) => billing.getRepository(LogEntity).findBy({ type: 2, ...where });
  const quota = async () => (await world.gateway.call('GET', '/api/user/self', { session: world.user })).json().data.quota as number;
  /** The models the relay routes for the test user (its routing table, fed by channel events). */
  const listedModels = async () => {
    const response = await fetch(`${world.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${world.apiKey}` } });
    return ((await response.json()) as { data: Array<{ id: string }> }).data.map((entry) => entry.id);
  };
  const settled = async (count: number) =>
    waitFor(async () => (await billing.getRepository(LogEntity).countBy({ type: 2, user_id: world.user.id })) >= count, 15_000, `${count} usage logs`);

  it('serves the official openai client: chat, stream, embeddings and the model list', async () => {
    const before = await quota();
    const chat = await client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'Say hello to the gateway, please.' }] });
    expect(chat.choices[0]?.message.content).toEqual(expect.any(String));
    expect(chat.usage?.total_tokens).toBeGreaterThan(0);

    const stream = await client.chat.completions.create({ model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'stream it' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);

    const embedding = await client.embeddings.create({ model: 'mock-embed', input: 'vector me' });
    expect(embedding.data[0]?.embedding.length).toBeGreaterThan(0);

    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(expect.arrayContaining(['mock-gpt', 'mock-embed']));

    await settled(3);
    const logs = await logsOf({ user_id: world.user.id });
    const chatLog = logs.find((log) => !log.is_stream && log.model_name === 'mock-gpt')!;
    // Ratio 1, completion ratio 2: prompt + 2 x completion, exactly as the mock reported.
    expect(chatLog.quota).toBe(chat.usage!.prompt_tokens + 2 * chat.usage!.completion_tokens);
    expect(JSON.parse(chatLog.other)).toMatchObject({ usage_source: 'upstream', admin_info: { use_channel: [expect.any(Number)] } });
    const spent = logs.reduce((sum, log) => sum + log.quota, 0);
    await waitFor(async () => (await quota()) === before - spent, 5_000, 'balance applied');
  });

  it('refuses bad keys, unknown models and over-budget requests before any upstream call', async () => {
    const received = world.mock.stats.received;
    const bad = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: 'sk-not-a-real-key', maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401 });
    await expect(client.chat.completions.create({ model: 'nobody-serves-this', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 400,
    });
    // max_tokens beyond the balance: the hold fails, nothing is forwarded.
    await expect(
      client.chat.completions.create({ model: 'mock-gpt', max_tokens: 9_000_000, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 403 });
    expect(world.mock.stats.received).toBe(received);
  });

  it('moves to another channel on a retryable failure and charges once', async () => {
    const failing = await world.addChannel({
      name: 'failing',
      models: 'mock-retry',
      priority: 10,
      model_mapping: JSON.stringify({ 'mock-retry': 'mock-gpt@status=500' }),
    });
    const healthy = await world.addChannel({ name: 'healthy', models: 'mock-retry', priority: 0 });
    await world.waitForModel('mock-retry');
    const answer = await client.chat.completions.create({ model: 'mock-retry', messages: [{ role: 'user', content: 'retry me' }] });
    expect(answer.choices[0]?.message.content).toEqual(expect.any(String));
    await waitFor(async () => (await logsOf({ model_name: 'mock-retry' })).length === 1, 10_000, 'retry log');
    // A fixed wait: a second record would come after the first, and nothing marks its absence.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logs = await logsOf({ model_name: 'mock-retry' });
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!.other).admin_info.use_channel).toEqual([failing, healthy]);
    expect(logs[0]!.channel_id).toBe(healthy);
  });

  it('sends no traffic to a channel once it was disabled automatically', async () => {
    await world.setOption('AutomaticDisableChannelEnabled', true);
    // mock-auth-revoked is served by the revoked channel alone: the relay's model list shows when it learnt of the disable.
    const revoked = await world.addChannel({
      name: 'revoked',
      models: 'mock-auth,mock-auth-revoked',
      priority: 10,
      model_mapping: JSON.stringify({ 'mock-auth': 'mock-gpt@status=401' }),
    });
    await world.addChannel({ name: 'backup', models: 'mock-auth', priority: 0 });
    await world.waitForModel('mock-auth-revoked');
    await world.waitForModel('mock-auth');
    await client.chat.completions.create({ model: 'mock-auth', messages: [{ role: 'user', content: 'first' }] });
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${revoked}`, { session: world.root })).json().data?.status === 3,
      10_000,
      'auto-disabled',
    );
    await waitFor(async () => !(await listedModels()).includes('mock-auth-revoked'), 10_000, 'the relay routes around the disabled channel');
    const hits = () => world.mock.requests.filter((entry) => String(entry.body?.model).includes('status=401')).length;
    const before = hits();
    for (let i = 0; i < 5; i++) await client.chat.completions.create({ model: 'mock-auth', messages: [{ role: 'user', content: `again ${i}` }] });
    expect(hits()).toBe(before);
  });

  it('charges a client that leaves mid-stream for what was streamed, not more and not zero', async () => {
    await world.addChannel({ name: 'slow', models: 'mock-slow', model_mapping: JSON.stringify({ 'mock-slow': 'mock-gpt@chunks=40,delay=25,nousage' }) });
    await world.waitForModel('mock-slow');
    const controller = new AbortController();
    const response = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-slow', stream: true, messages: [{ role: 'user', content: 'a long story' }] }),
    });
    const reader = response.body!.getReader();
    let events = 0;
    while (events < 8) {
      const { value } = await reader.read();
      events += (new TextDecoder().decode(value).match(/^data: /gm) ?? []).length;
    }
    controller.abort();
    await waitFor(async () => (await logsOf({ model_name: 'mock-slow' })).length === 1, 10_000, 'disconnect settled');
    const [log] = await logsOf({ model_name: 'mock-slow' });
    expect(log!.completion_tokens).toBeGreaterThan(0);
    expect(log!.quota).toBeGreaterThan(log!.prompt_tokens);
    expect(JSON.parse(log!.other).usage_source).toBe('estimated');
    // Forty chunks were never all sent: well below what the whole answer would have counted.
    expect(log!.completion_tokens).toBeLessThan(40 * world.mock.defaults.words);
    expect(log!.content).toMatch(/client disconnected/);
  });

  it('records exactly one usage per request for 100 concurrent streams, and the balances reconcile', async () => {
    const before = await billing.getRepository(LogEntity).countBy({ type: 2, user_id: world.user.id });
    const balanceBefore = await quota();
    await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const stream = await client.chat.completions.create({ model: 'mock-stream', stream: true, messages: [{ role: 'user', content: `stream ${index}` }] });
        for await (const chunk of stream) void chunk;
      }),
    );
    await settled(before + 100);
    // A fixed wait: a record written twice would come after the hundred, and nothing marks its absence.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const logs = await logsOf({ model_name: 'mock-stream' });
    expect(logs).toHaveLength(100);
    expect(new Set(logs.map((log) => log.request_id)).size).toBe(100);
    const charged = logs.reduce((sum, log) => sum + log.quota, 0);
    await waitFor(async () => (await quota()) === balanceBefore - charged, 10_000, 'balance reconciled with logs');
    expect(await reconcile(billing)).toEqual([]);
  });

  it("keeps each channel's used quota from the usage records", async () => {
    const charged = (await billing.getRepository(LogEntity).findBy({ type: 2, channel_id: mainChannel })).reduce((sum, log) => sum + log.quota, 0);
    expect(charged).toBeGreaterThan(0);
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${mainChannel}`, { session: world.root })).json().data.used_quota === charged,
      10_000,
      'channel used quota',
    );
  });
});
