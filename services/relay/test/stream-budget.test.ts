// A hard stop when a stream outruns its money (issue 19, docs/architecture.md section 5.4): a
// request without max_tokens holds only PreConsumedQuota tokens, so a long answer outruns its
// hold. The relay meters it as it passes, extends the hold while the user and the key can pay,
// and stops the stream (an error event, the upstream call cancelled) where the money ends: the
// balance or the key's quota lands at zero, never below, and billing reconciles.
import OpenAI from 'openai';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { reconcile } from '../../billing/src/reconcile';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(120_000);

/** 600 chunks of one token, no usage report: counted by the relay as they pass. */
const longModel = 'mock-gpt@chunks=600,delay=1,nousage';
/** The same answer whole, with the upstream's usage report (1,200 quota of completion at ratio 2). */
const longWholeModel = 'mock-gpt@chunks=600';

describe.each(backends)('stream budget (%s)', (backend) => {
  let world: RelayWorld;
  let billing: DataSource;

  beforeAll(async () => {
    world = await startRelayWorld(backend, { userQuota: 300 });
    billing = await openBillingDatabase(world.gateway.env);
    // Ten tokens held when no max_tokens is given: every long answer here outruns its hold.
    await world.setOption('PreConsumedQuota', 10);
    await world.addChannel({
      name: 'long',
      models: 'mock-long,mock-long-whole',
      model_mapping: JSON.stringify({ 'mock-long': longModel, 'mock-long-whole': longWholeModel }),
    });
    await world.waitForModel('mock-long');
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const setBalance = async (quota: number) => {
    const answer = (await world.gateway.call('PUT', '/api/user/', { session: world.root, body: { id: world.user.id, quota } })).json();
    expect(answer).toMatchObject({ success: true });
    await waitFor(async () => (await world.balance()) === quota, 10_000, `balance ${quota}`);
  };

  /** Streams a chat and returns the SSE data lines and the request id. */
  const streamChat = async (apiKey: string, model: string) => {
    const response = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'tell a long story' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
    return { data, requestId: response.headers.get('x-oneapi-request-id')! };
  };

  it('stops a stream at the balance with an error event: the balance lands at zero and billing reconciles', async () => {
    await setBalance(300);
    const upstreamCalls = world.mock.requests.length;
    const { data, requestId } = await streamChat(world.apiKey, 'mock-long');
    const content = data.filter((line) => line.includes('"content"')).length;
    // Ratio 1 and completion ratio 2: about 145 tokens fit in 300, far fewer than the 600 chunks.
    expect(content).toBeGreaterThan(50);
    expect(content).toBeLessThan(200);
    const error = data.find((line) => line.includes('"error"'));
    expect(JSON.parse(error!)).toMatchObject({ error: { code: 'insufficient_quota', type: 'insufficient_quota' } });
    expect(data.at(-1)).toBe('[DONE]');
    expect(world.mock.requests.length).toBe(upstreamCalls + 1);

    const log = await world.usageLog(requestId);
    expect(log.quota).toBe(300);
    expect(log.content).toMatch(/ran out during the answer/);
    await waitFor(async () => (await world.balance()) === 0, 10_000, 'balance at zero');
    expect(await reconcile(billing)).toEqual([]);
    // Nothing is left: the next request is refused before any upstream call.
    const refused = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-long', stream: true, messages: [{ role: 'user', content: 'more' }] }),
    });
    expect(refused.status).toBe(403);
  });

  it("stops at a limited key's quota while the user could pay more; the key lands at zero", async () => {
    await setBalance(100_000);
    const created = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'small-key', remain_quota: 200, unlimited_quota: false } })
    ).json();
    expect(created).toMatchObject({ success: true });
    const { data, requestId } = await streamChat(created.data[0].key as string, 'mock-long');
    expect(data.some((line) => line.includes('"insufficient_quota"'))).toBe(true);
    const log = await world.usageLog(requestId);
    expect(log.quota).toBe(200);
    const keyId = created.data[0].id as number;
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/token/${keyId}`, { session: world.user })).json().data?.remain_quota === 0,
      10_000,
      'key quota at zero',
    );
    await waitFor(async () => (await world.balance()) === 100_000 - 200, 10_000, 'user charged what the key had');
    expect(await reconcile(billing)).toEqual([]);
  });

  it('charges a whole answer above the balance only what was left: zero, not below', async () => {
    await setBalance(500);
    const client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
    const { data: chat, response } = await client.chat.completions
      .create({ model: 'mock-long-whole', messages: [{ role: 'user', content: 'all at once' }] })
      .withResponse();
    expect(chat.usage?.completion_tokens).toBe(600);
    const log = await world.usageLog(response.headers.get('x-oneapi-request-id')!);
    expect(log.quota).toBe(500);
    await waitFor(async () => (await world.balance()) === 0, 10_000, 'balance at zero');
    expect(await reconcile(billing)).toEqual([]);
  });

  it('many streams at once against one small balance never take it below zero', async () => {
    await setBalance(1_000);
    const results = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const response = await fetch(`${world.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-long', stream: true, messages: [{ role: 'user', content: 'race' }] }),
        });
        await response.text();
        // Refused ones (403: nothing left to hold) leave no record.
        return response.status === 200 ? response.headers.get('x-oneapi-request-id') : null;
      }),
    );
    const charged = (await Promise.all(results.filter((id): id is string => id !== null).map((id) => world.usageLog(id)))).reduce(
      (sum, log) => sum + log.quota,
      0,
    );
    expect(charged).toBeLessThanOrEqual(1_000);
    await waitFor(async () => (await world.balance()) === 1_000 - charged, 10_000, 'balance reconciled');
    expect(await world.balance()).toBeGreaterThanOrEqual(0);
    expect(await reconcile(billing)).toEqual([]);
    expect(await billing.getRepository(LogEntity).countBy({ type: 2, user_id: world.user.id })).toBeGreaterThan(0);
  });
});
