import type { DataSource } from 'typeorm';
import { BusRequestError } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { createChannels, ordinaryUser, setOption, type FakeRelay, startChannelsWorld, type ChannelsWorld } from './support/channels';

describe.each(backends)('channel tests, balances and model lists (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let relay: FakeRelay;
  let db: DataSource;

  let world: ChannelsWorld | undefined;

  beforeAll(async () => {
    world = await startChannelsWorld(backend);
    ({ gateway, root, db, relay } = world);
  });
  afterAll(async () => {
    await world?.close();
  });
  beforeEach(() => {
    relay.calls.length = 0;
    relay.answer = () => ({});
  });

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, session = root) =>
    (await gateway.call(method, url, { session, body })).json();
  const get = async (id: number) => (await call('GET', `/api/channel/${id}`)).data;
  const setOptions = async (values: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(values)) await setOption(gateway, root, key, value);
  };

  it('tests a channel through the relay with the stored key and records the time', async () => {
    const [id] = await createChannels(gateway, root, { name: 'tested', key: 'sk-test-me', models: 'gpt-4o-mini,gpt-4o', test_model: '' });
    relay.answer = () => ({ ok: true, response_time_ms: 1_234 });
    const answer = await call('POST', `/api/channel/test/${id}`);
    expect(answer).toEqual({ success: true, message: '', time: 1.234, data: { time: 1.234 } });
    expect(relay.calls).toHaveLength(1);
    expect(relay.calls[0]).toMatchObject({ operation: 'test', key: 'sk-test-me', model: 'gpt-4o-mini', channel: { id, models: ['gpt-4o-mini', 'gpt-4o'] } });
    expect(await get(id!)).toMatchObject({ response_time: 1234, test_time: expect.any(Number), status: 1 });
    expect((await get(id!)).test_time).toBeGreaterThan(Date.now() / 1000 - 60);

    await call('POST', `/api/channel/test/${id}?model=gpt-4o`);
    expect(relay.calls[1]!.model).toBe('gpt-4o');
    await call('PUT', '/api/channel/', { id, test_model: 'gpt-4o' });
    await call('POST', `/api/channel/test/${id}`);
    expect(relay.calls[2]!.model).toBe('gpt-4o');
  });

  it('reports a failed test, and disables the channel only when the rules say so', async () => {
    const [id] = await createChannels(gateway, root, { name: 'failing', key: 'sk-failing' });
    relay.answer = () => ({ ok: false, status_code: 401, message: 'Incorrect API key provided', response_time_ms: 80 });
    await setOptions({ AutomaticDisableChannelEnabled: false });
    expect(await call('POST', `/api/channel/test/${id}`)).toEqual({ success: false, message: 'Incorrect API key provided', time: 0.08, data: { time: 0.08 } });
    expect((await get(id!)).status).toBe(1); // the global option is off

    await setOptions({ AutomaticDisableChannelEnabled: true });
    relay.answer = () => ({ ok: false, status_code: 500, message: 'upstream overloaded' });
    await call('POST', `/api/channel/test/${id}`);
    expect((await get(id!)).status).toBe(1); // a 500 is no reason

    relay.answer = () => ({ ok: false, status_code: 401, message: 'Incorrect API key provided' });
    await call('POST', `/api/channel/test/${id}`);
    const disabled = await get(id!);
    expect(disabled.status).toBe(3);
    expect(JSON.parse(disabled.other_info)).toEqual({ status_reason: 'status 401: Incorrect API key provided', status_time: expect.any(Number) });
  });

  it('disables a channel whose test is slower than ChannelDisableThreshold', async () => {
    const [id] = await createChannels(gateway, root, { name: 'slow', key: 'sk-slow' });
    await setOptions({ AutomaticDisableChannelEnabled: true, ChannelDisableThreshold: 2 });
    relay.answer = () => ({ ok: true, response_time_ms: 1_900 });
    expect((await call('POST', `/api/channel/test/${id}`)).success).toBe(true);
    expect((await get(id!)).status).toBe(1);
    relay.answer = () => ({ ok: true, response_time_ms: 2_500 });
    expect(await call('POST', `/api/channel/test/${id}`)).toMatchObject({
      success: false,
      message: 'response time 2.50 s exceeds the threshold of 2 s',
      time: 2.5,
    });
    const slow = await get(id!);
    expect(slow).toMatchObject({ status: 3, response_time: 2500 });
    expect(JSON.parse(slow.other_info).status_reason).toBe('response time 2.50 s exceeds the threshold of 2 s');

    // Threshold 0 means never.
    await setOptions({ ChannelDisableThreshold: 0 });
    const [other] = await createChannels(gateway, root, { name: 'slow-ok', key: 'sk-slow-ok' });
    relay.answer = () => ({ ok: true, response_time_ms: 90_000 });
    expect((await call('POST', `/api/channel/test/${other}`)).success).toBe(true);
    expect((await get(other!)).status).toBe(1);
    await setOptions({ ChannelDisableThreshold: 5 });
  });

  it('re-enables an automatically disabled channel that passes, never a manually disabled one', async () => {
    const [auto, manual] = await createChannels(gateway, root, { name: 'comeback', key: 'sk-auto\nsk-manual' });
    await db.query(`UPDATE channels SET status = 3, other_info = '{"status_reason":"x","status_time":1}' WHERE id = ${Number(auto)}`);
    await call('PUT', '/api/channel/', { id: manual, status: 2 });
    relay.answer = () => ({ ok: true, response_time_ms: 100 });

    await setOptions({ AutomaticEnableChannelEnabled: false });
    await call('POST', `/api/channel/test/${auto}`);
    expect((await get(auto!)).status).toBe(3);

    await setOptions({ AutomaticEnableChannelEnabled: true });
    await call('POST', `/api/channel/test/${auto}`);
    expect(await get(auto!)).toMatchObject({ status: 1, other_info: '{}' });
    expect((await call('POST', `/api/channel/test/${manual}`)).success).toBe(true);
    expect((await get(manual!)).status).toBe(2);
    await setOptions({ AutomaticEnableChannelEnabled: false });
  });

  it('says so when the relay does not answer, without blaming the channel', async () => {
    await setOptions({ AutomaticDisableChannelEnabled: true });
    const [id] = await createChannels(gateway, root, { name: 'orphan', key: 'sk-orphan' });
    relay.answer = () => {
      throw new BusRequestError('no reply to relay.channel.operate within 60000 ms', 'relay.channel.operate', 'timeout');
    };
    expect(await call('POST', `/api/channel/test/${id}`)).toEqual({ success: false, message: 'relay: the relay did not answer; try again later' });
    expect(await get(id!)).toMatchObject({ status: 1, test_time: 0 });
    relay.answer = () => {
      throw new BusRequestError('egress refused', 'relay.channel.operate', 'remote-error', 'invalid_request');
    };
    expect(await call('GET', `/api/channel/fetch_models/${id}`)).toEqual({ success: false, message: 'relay: egress refused' });
  });

  it('tests every enabled or automatically disabled channel in the background', async () => {
    const statuses = Object.fromEntries(
      (await db.query('SELECT id, status FROM channels')).map((row: { id: number; status: number }) => [Number(row.id), Number(row.status)]),
    );
    const expected = Object.entries(statuses)
      .filter(([, status]) => status === 1 || status === 3)
      .map(([id]) => Number(id))
      .sort((a, b) => a - b);
    relay.answer = () => ({ ok: true, response_time_ms: 42 });
    expect(await call('POST', '/api/channel/test')).toMatchObject({ success: true });
    await waitFor(() => relay.calls.length >= expected.length, 10_000, 'every channel tested');
    expect(relay.calls.map((request) => request.channel.id).sort((a, b) => a - b)).toEqual(expected);
    expect(relay.calls.every((request) => request.operation === 'test')).toBe(true);
    await waitFor(async () => (await get(expected.at(-1)!)).response_time === 42, 5_000, 'times recorded');
  });

  it('reads balances, one and all enabled, without ever disabling on a balance', async () => {
    await setOptions({ AutomaticDisableChannelEnabled: true });
    const [id] = await createChannels(gateway, root, { name: 'rich', key: 'sk-rich', base_url: 'https://reseller.example.com' });
    relay.answer = (request) => ({ ok: true, balance: request.channel.id === id ? 42.5 : 0 });
    expect(await call('POST', `/api/channel/update_balance/${id}/`)).toEqual({ success: true, message: '', balance: 42.5, data: { balance: 42.5 } });
    expect(relay.calls[0]).toMatchObject({ operation: 'balance', key: 'sk-rich', channel: { base_url: 'https://reseller.example.com' } });
    expect(await get(id!)).toMatchObject({ balance: 42.5, balance_updated_time: expect.any(Number) });

    relay.answer = () => ({ ok: false, status_code: 404, message: 'the upstream has no balance endpoint' });
    expect(await call('POST', `/api/channel/update_balance/${id}`)).toEqual({ success: false, message: 'the upstream has no balance endpoint' });

    relay.calls.length = 0;
    relay.answer = () => ({ ok: true, balance: 0 });
    const enabled = Number((await db.query('SELECT COUNT(*) AS n FROM channels WHERE status = 1'))[0].n);
    expect(await call('POST', '/api/channel/update_balance')).toMatchObject({ success: true });
    await waitFor(() => relay.calls.length === enabled, 10_000, 'every enabled channel asked');
    await waitFor(async () => (await get(id!)).balance === 0, 5_000, 'balance recorded');
    expect((await get(id!)).status).toBe(1); // a zero balance never disables
  });

  it('fetches the upstream models of a stored channel and of an unsaved one', async () => {
    const [id] = await createChannels(gateway, root, { name: 'lister', key: 'sk-lister' });
    relay.answer = () => ({ ok: true, models: ['b-model', 'a-model', 'b-model'] });
    expect(await call('GET', `/api/channel/fetch_models/${id}`)).toEqual({ success: true, message: '', data: ['a-model', 'b-model'] });
    expect(relay.calls[0]).toMatchObject({ operation: 'models', key: 'sk-lister', channel: { id } });

    expect(await call('POST', '/api/channel/fetch_models', { type: 43, base_url: 'https://api.deepseek.com', key: 'sk-new-1\nsk-new-2' })).toEqual({
      success: true,
      message: '',
      data: ['a-model', 'b-model'],
    });
    expect(relay.calls[1]).toMatchObject({ operation: 'models', key: 'sk-new-1', channel: { id: 0, type: 43, base_url: 'https://api.deepseek.com' } });
    expect((await call('POST', '/api/channel/fetch_models', { type: 43, key: '' })).message).toMatch(/^key: /);
    expect((await call('POST', '/api/channel/fetch_models', { type: 999, key: 'k' })).message).toMatch(/^type: /);

    relay.answer = () => ({ ok: false, status_code: 401, message: 'bad key' });
    expect(await call('GET', `/api/channel/fetch_models/${id}`)).toEqual({ success: false, message: 'bad key' });
    expect(await gateway.call('GET', '/api/channel/fetch_models/424242', { session: root })).toMatchObject({ statusCode: 404 });
  });

  it('lists known models per type, the enabled ones, and what users may call', async () => {
    await db.query('DELETE FROM abilities');
    await db.query('DELETE FROM channels');
    const [claude] = await createChannels(gateway, root, {
      name: 'claude',
      type: 14,
      key: 'sk-ant',
      models: 'claude-3-5-haiku-20241022,my-claude',
      group: 'vip',
    });
    await createChannels(gateway, root, { name: 'openai', type: 1, key: 'sk-oai', models: 'gpt-4o,custom-model', group: 'default,vip' });
    const [off] = await createChannels(gateway, root, { name: 'off', type: 43, key: 'sk-ds', models: 'deepseek-chat,hidden-model', group: 'default' });
    await call('PUT', '/api/channel/', { id: off, status: 2 });

    const known = (await call('GET', '/api/channel/models')).data as Array<{ id: string; owned_by: string; channel_types: number[] }>;
    expect(known.find((model) => model.id === 'gpt-4o')).toMatchObject({ object: 'model', owned_by: 'openai', channel_types: expect.arrayContaining([1, 3]) });
    expect(known.find((model) => model.id === 'my-claude')).toEqual({ id: 'my-claude', object: 'model', owned_by: 'anthropic', channel_types: [14] });
    expect(known.find((model) => model.id === 'hidden-model')).toMatchObject({ channel_types: [43] });
    expect(known.some((model) => model.id === 'gemini-2.0-flash')).toBe(true);

    expect((await call('GET', '/api/channel/models_enabled')).data).toEqual(['claude-3-5-haiku-20241022', 'custom-model', 'gpt-4o', 'my-claude']);
    const enabled = await gateway.env.infra.bus.request('channels.model.enabled', {});
    expect(enabled).toEqual({
      models: [
        { model: 'claude-3-5-haiku-20241022', groups: ['vip'] },
        { model: 'custom-model', groups: ['default', 'vip'] },
        { model: 'gpt-4o', groups: ['default', 'vip'] },
        { model: 'my-claude', groups: ['vip'] },
      ],
    });

    const alice = await ordinaryUser(gateway, 'alice');
    expect(await call('GET', '/api/models', undefined, alice)).toEqual({
      success: true,
      message: '',
      data: { 1: ['custom-model', 'gpt-4o'], 14: ['claude-3-5-haiku-20241022', 'my-claude'] },
    });
    expect((await call('GET', '/api/user/models', undefined, alice)).data).toEqual(['custom-model', 'gpt-4o']);
    await call('PUT', '/api/user/', { id: alice.id, group: 'vip' });
    const vipAlice = await gateway.login('alice', 'alice-password');
    expect((await call('GET', '/api/user/models', undefined, vipAlice)).data).toEqual(['claude-3-5-haiku-20241022', 'custom-model', 'gpt-4o', 'my-claude']);
    await call('PUT', '/api/channel/', { id: claude, status: 2 });
    expect((await call('GET', '/api/user/models', undefined, vipAlice)).data).toEqual(['custom-model', 'gpt-4o']);
    expect((await gateway.call('GET', '/api/user/models')).statusCode).toBe(401);
  });
});
