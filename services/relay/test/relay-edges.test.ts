import type { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { counterKeys, createQuotaGate, createSilentLogger, publishEvent } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity, PendingRequestEntity } from '../../billing/src/entities/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** Token rules, pinning, the playground, the egress guard and stream failures (in-process backend). */
describe('relay edges', () => {
  let world: RelayWorld;
  let billing: DataSource;

  beforeAll(async () => {
    world = await startRelayWorld('in-process', { env: { STREAMING_TIMEOUT_MS: '300', PENDING_SWEEP_INTERVAL_MS: '1000' } });
    billing = await openBillingDatabase(world.gateway.env);
    await world.addChannel({
      name: 'main',
      models: 'mock-gpt,mock-drip,mock-bad,mock-cut',
      model_mapping: JSON.stringify({
        'mock-drip': 'mock-gpt@chunks=5,slowdrip,drip=2000',
        'mock-bad': 'mock-gpt@badsse',
        'mock-cut': 'mock-gpt@chunks=20,cut=5',
      }),
    });
    await world.waitForModel('mock-gpt');
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const token = async (body: Record<string, unknown>) => {
    const answer = (await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'edge', unlimited_quota: true, ...body } })).json();
    expect(answer.success).toBe(true);
    return answer.data[0].key as string;
  };
  const chat = (key: string, model = 'mock-gpt', extra: Record<string, unknown> = {}) =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
    });

  it('enforces model limits and allowed IPs of the token', async () => {
    const limited = await token({ model_limits_enabled: true, model_limits: 'other-model' });
    const refused = await chat(limited);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
    const elsewhere = await token({ allow_ips: '10.1.2.0/24' });
    expect((await chat(elsewhere)).status).toBe(403);
    const here = await token({ allow_ips: '127.0.0.1' });
    expect((await chat(here)).status).toBe(200);
  });

  it('refuses an expired or disabled token', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 1;
    const created = (
      await world.gateway.call('POST', '/api/token/', {
        session: world.user,
        body: { name: 'soon', unlimited_quota: true, expired_time: expiresAt },
      })
    ).json();
    // The token expires on the clock (expired_time is in whole seconds): wait for that moment, not a fixed time.
    await waitFor(() => Date.now() >= expiresAt * 1000, 2_000, 'the token expiry');
    expect((await chat(created.data[0].key)).status).toBe(401);
    const key = await token({});
    expect((await chat(key)).status).toBe(200);
    const id = (await world.gateway.call('GET', '/api/token/?p=1&size=100', { session: world.user }))
      .json()
      .data.items.find((item: { name: string; key: string }) => key.endsWith(item.key.slice(-4)) && item.name === 'edge').id;
    await world.gateway.call('PUT', '/api/token/?status_only=true', { session: world.user, body: { id, status: 2 } });
    await waitFor(async () => (await chat(key)).status === 401, 5_000, 'disabled token refused');
  });

  it('lets only admins pin a channel with sk-<key>-<channelId>', async () => {
    const channelId = (await world.gateway.call('GET', '/api/channel/?p=1', { session: world.root })).json().data.items[0].id;
    expect((await chat(`${world.apiKey}-${channelId}`)).status).toBe(403);
    const rootToken = (await world.gateway.call('POST', '/api/token/', { session: world.root, body: { name: 'root', unlimited_quota: true } })).json().data[0]
      .key;
    expect((await chat(`${rootToken}-${channelId}`)).status).toBe(200);
  });

  it('serves the playground to a signed-in user, billing the user only', async () => {
    const response = await world.gateway.call('POST', '/pg/chat/completions', {
      session: world.user,
      body: { model: 'mock-gpt', group: 'default', messages: [{ role: 'user', content: 'play' }] },
    });
    expect(response.statusCode).toBe(200);
    await waitFor(async () => (await billing.getRepository(LogEntity).countBy({ token_name: 'playground-default' })) === 1, 5_000, 'playground log');
    expect((await world.gateway.call('POST', '/pg/chat/completions', { body: { model: 'mock-gpt', messages: [] } })).statusCode).toBe(401);
    const foreign = await world.gateway.call('POST', '/pg/chat/completions', {
      session: world.user,
      body: { model: 'mock-gpt', group: 'svip', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(foreign.statusCode).toBe(403);
  });

  it('ends an idle stream with an error event and [DONE], and bills what arrived', async () => {
    const response = await chat(world.apiKey, 'mock-drip', { stream: true });
    const text = await response.text();
    expect(text).toMatch(/stream idle timeout/);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('survives malformed and cut upstream streams', async () => {
    const bad = await (await chat(world.apiKey, 'mock-bad', { stream: true })).text();
    expect(bad.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const cut = await (await chat(world.apiKey, 'mock-cut', { stream: true })).text();
    expect(cut.trimEnd().endsWith('data: [DONE]')).toBe(true);
    await waitFor(async () => (await billing.getRepository(LogEntity).countBy({ model_name: 'mock-cut' })) === 1, 5_000, 'cut stream logged');
    const [log] = await billing.getRepository(LogEntity).findBy({ model_name: 'mock-cut' });
    expect(log!.completion_tokens).toBeGreaterThan(0);
    expect(log!.completion_tokens).toBeLessThan(20);
  });

  it('refuses upstreams on private addresses unless the channel allows them', async () => {
    const main = (await world.gateway.call('GET', '/api/channel/?p=1&page_size=100', { session: world.root }))
      .json()
      .data.items.find((row: { name: string }) => row.name === 'main').id as number;
    const allow = async (allowed: boolean) =>
      expect(
        (await world.gateway.call('PUT', '/api/channel/', { session: world.root, body: { id: main, allow_private_network: allowed } })).json().success,
      ).toBe(true);
    await allow(false);
    try {
      await waitFor(async () => (await chat(world.apiKey)).status === 502, 5_000, 'blocked');
      const body = (await (await chat(world.apiKey)).json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('upstream_address_blocked');
      expect(body.error.message).not.toMatch(/127\.0\.0\.1|mock-key/);
    } finally {
      await allow(true);
    }
    await waitFor(async () => (await chat(world.apiKey)).status === 200, 5_000, 'allowed again');
  });

  it('never passes the channel key on to the client, even when the upstream echoes it', async () => {
    await world.addChannel({
      name: 'echo',
      models: 'mock-echo',
      key: 'CANARY-channel-key-7f3a',
      model_mapping: JSON.stringify({ 'mock-echo': 'mock-gpt@echo-headers' }),
    });
    await world.waitForModel('mock-echo');
    const plain = await (await chat(world.apiKey, 'mock-echo')).text();
    const streamed = await (await chat(world.apiKey, 'mock-echo', { stream: true })).text();
    expect(world.mock.requests.some((entry) => String(entry.headers.authorization).includes('CANARY-channel-key-7f3a'))).toBe(true);
    expect(plain).not.toContain('CANARY-channel-key-7f3a');
    expect(streamed).not.toContain('CANARY-channel-key-7f3a');
  });

  it("a dead relay's request: its hold goes back to the counters and billing records it once, charging nothing", async () => {
    const { infra } = world.gateway.env;
    const spendable = () => infra.counters.get(counterKeys.user(world.user.id));
    await world.setOption('QuotaRemindThreshold', 0);
    const dead = createQuotaGate({ ...infra, logger: createSilentLogger(), instanceName: `dead-${randomUUID()}`, leaseTtlMs: 1_000 });
    await dead.start();
    const requestId = randomUUID();
    const record = {
      request_id: requestId,
      user_id: world.user.id,
      token_id: world.tokenId,
      token_name: 'relay-test',
      model_name: 'mock-gpt',
      group: 'default',
      channel_id: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      quota: 0,
      use_time_ms: 0,
      is_stream: true,
      created_at: Math.floor(Date.now() / 1000),
      content: 'relay stopped mid-request; nothing was charged',
      other: {},
    };
    // The hold carries the record too: both the hold sweep and billing's pending sweep publish it, and one log row results.
    const reserved = await dead.reserve({
      requestId,
      userId: world.user.id,
      tokenId: world.tokenId,
      unlimitedToken: true,
      amount: 5_000,
      ttlMs: 60_000,
      record,
    });
    if (!reserved.ok) throw new Error(reserved.reason);
    const before = (await spendable())! + 5_000;
    // What the relay announces of a request running for a second; billing keeps it as pending.
    await publishEvent(infra.bus, 'relay.request.started', { record, owner: reserved.hold.owner, expires_at: reserved.hold.expiresAt }, `started-${requestId}`);
    await waitFor(() => billing.getRepository(PendingRequestEntity).existsBy({ request_id: requestId }), 10_000, 'pending request');
    // The relay dies: its lease ends. Sweeps run every second in this world (the hold sweep on demand here).
    await dead.close();
    await infra.jobs.add('relay.holds.sweep', {});
    await waitFor(async () => (await dead.getHold(requestId)) === null, 10_000, 'hold released');
    expect(await spendable()).toBe(before);
    await waitFor(async () => (await billing.getRepository(LogEntity).countBy({ request_id: requestId })) === 1, 10_000, 'orphan record');
    const [log] = await billing.getRepository(LogEntity).findBy({ request_id: requestId });
    expect(log).toMatchObject({ quota: 0, content: 'relay stopped mid-request; nothing was charged' });
    expect(await billing.getRepository(PendingRequestEntity).existsBy({ request_id: requestId })).toBe(false);
    expect(await spendable()).toBe(before);
  });
});
