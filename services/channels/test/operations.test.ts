import type { DataSource } from 'typeorm';
import { JobName, type JobView } from '@aigw/contracts';
import { BusRequestError } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../../tools/mock-upstream/server.mjs';
import { type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { createChannels, onMock, ordinaryUser, setOption, startChannelsWorld, withRelayFailing, type ChannelsWorld } from './support/channels';

/**
 * Channel tests, balances and upstream model lists on the real path: channels asks the relay of
 * the same gateway over the bus (`relay.channel.operate`), and the relay calls the mock upstream,
 * whose behaviour per channel comes from the channel's key (`mock.keys`) or its test model's suffix.
 */
describe.each(backends)('channel tests, balances and model lists through the relay (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let db: DataSource;
  let mock: MockUpstream;
  let world: ChannelsWorld | undefined;

  beforeAll(async () => {
    // Listed out of order and one twice: channels sorts the list and drops repeats.
    mock = await startMockUpstream({ models: ['mock-gpt-mini', 'mock-gpt', 'mock-embed', 'mock-gpt'] });
    world = await startChannelsWorld(backend);
    ({ gateway, root, db } = world);
  });
  afterAll(async () => {
    await world?.close();
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, session = root) =>
    (await gateway.call(method, url, { session, body })).json();
  /** The same call in the console's other language. */
  const callInChinese = async (method: 'GET' | 'POST', url: string) =>
    (await gateway.call(method, url, { session: root, headers: { 'accept-language': 'zh-CN' } })).json();
  const get = async (id: number) => (await call('GET', `/api/channel/${id}`)).data;
  const setOptions = async (values: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(values)) await setOption(gateway, root, key, value);
  };
  /** Creates one channel on the mock upstream. */
  const create = async (fields: Record<string, unknown>) => (await createChannels(gateway, root, onMock(mock, fields)))[0]!;
  const sent = (path: string) => mock.requests.filter((request) => request.path === path);
  const keyOf = (request: RecordedRequest) => String(request.headers.authorization).replace(/^Bearer /, '');
  const lastRun = async (name: JobName) => ((await call('GET', '/api/job/')).data as JobView[]).find((job) => job.name === name)!.last_run;
  /** The sweeps below cover every channel: they start from an empty table. */
  const clearChannels = async () => {
    await db.query('DELETE FROM abilities');
    await db.query('DELETE FROM channels');
  };

  it('tests a channel through the relay with the stored key and records the time', async () => {
    const id = await create({ name: 'tested', key: 'sk-test-me', models: 'mock-gpt-mini,mock-gpt', test_model: '' });
    const answer = await call('POST', `/api/channel/test/${id}`);
    expect(answer).toEqual({ success: true, message: '', time: expect.any(Number), data: { time: answer.time } });
    expect(await get(id)).toMatchObject({ response_time: Math.round(answer.time * 1000), test_time: expect.any(Number), status: 1 });
    expect((await get(id)).test_time).toBeGreaterThan(Date.now() / 1000 - 60);
    // The first model, with the stored key, as a plain chat.
    expect(sent('/v1/chat/completions')).toEqual([
      expect.objectContaining({
        method: 'POST',
        headers: expect.objectContaining({ authorization: 'Bearer sk-test-me' }),
        body: expect.objectContaining({ model: 'mock-gpt-mini' }),
      }),
    ]);

    // The time is the upstream's: a slower answer records a longer one.
    const slower = await call('POST', `/api/channel/test/${id}?model=${encodeURIComponent('mock-gpt@latency=150')}`);
    expect(slower.success).toBe(true);
    expect(slower.time).toBeGreaterThanOrEqual(0.15);
    expect((await get(id)).response_time).toBe(Math.round(slower.time * 1000));

    await call('POST', `/api/channel/test/${id}?model=mock-gpt`);
    expect(sent('/v1/chat/completions').at(-1)!.body.model).toBe('mock-gpt');
    await call('PUT', '/api/channel/', { id, test_model: 'mock-gpt@chunks=1' });
    await call('POST', `/api/channel/test/${id}`);
    expect(sent('/v1/chat/completions').at(-1)!.body.model).toBe('mock-gpt@chunks=1');
  });

  it('reports a failed test, and disables the channel only when the rules say so', async () => {
    mock.keys['sk-revoked'] = 'status=401';
    const id = await create({ name: 'failing', key: 'sk-revoked' });
    await setOptions({ AutomaticDisableChannelEnabled: false });
    const refused = await call('POST', `/api/channel/test/${id}`);
    expect(refused).toEqual({
      success: false,
      message: 'test failed: mock upstream: status 401 as asked',
      time: expect.any(Number),
      data: { time: refused.time },
    });
    expect((await get(id)).status).toBe(1); // the global option is off

    await setOptions({ AutomaticDisableChannelEnabled: true });
    // The model suffix wins over the key's options: this test gets a 500, which is no reason.
    expect(await call('POST', `/api/channel/test/${id}?model=${encodeURIComponent('mock-gpt@status=500')}`)).toMatchObject({
      success: false,
      message: 'test failed: mock upstream: status 500 as asked',
    });
    expect((await get(id)).status).toBe(1);

    // The upstream's words quoted as they are, in either language.
    expect(await callInChinese('POST', `/api/channel/test/${id}`)).toMatchObject({ success: false, message: '测试失败: mock upstream: status 401 as asked' });
    const disabled = await get(id);
    expect(disabled.status).toBe(3);
    expect(JSON.parse(disabled.other_info)).toEqual({ status_reason: 'status 401: mock upstream: status 401 as asked', status_time: expect.any(Number) });
    expect(sent('/v1/chat/completions').map(keyOf)).toEqual(['sk-revoked', 'sk-revoked', 'sk-revoked']);
  });

  it('disables a channel whose test is slower than ChannelDisableThreshold', async () => {
    await setOptions({ AutomaticDisableChannelEnabled: true, ChannelDisableThreshold: 0.5 });
    const id = await create({ name: 'slow', key: 'sk-slow', test_model: 'mock-gpt@latency=600' });
    // A quick answer passes.
    expect((await call('POST', `/api/channel/test/${id}?model=mock-gpt`)).success).toBe(true);
    expect((await get(id)).status).toBe(1);

    const slow = await call('POST', `/api/channel/test/${id}`);
    expect(slow).toMatchObject({ success: false, message: expect.stringMatching(/^response time \d+\.\d\d s exceeds the threshold of 0\.5 s$/) });
    expect(slow.time).toBeGreaterThanOrEqual(0.6);
    expect(slow.message).toBe(`response time ${slow.time.toFixed(2)} s exceeds the threshold of 0.5 s`);
    const stored = await get(id);
    expect(stored).toMatchObject({ status: 3, response_time: Math.round(slow.time * 1000) });
    expect(JSON.parse(stored.other_info).status_reason).toBe(slow.message);

    // Threshold 0 means never.
    await setOptions({ ChannelDisableThreshold: 0 });
    const other = await create({ name: 'slow-ok', key: 'sk-slow-ok', test_model: 'mock-gpt@latency=600' });
    const passed = await call('POST', `/api/channel/test/${other}`);
    expect(passed.success).toBe(true);
    expect(passed.time).toBeGreaterThanOrEqual(0.6);
    expect((await get(other)).status).toBe(1);
    await setOptions({ ChannelDisableThreshold: 5 });
  });

  it('re-enables an automatically disabled channel that passes, never a manually disabled one', async () => {
    const [auto, manual] = await createChannels(gateway, root, onMock(mock, { name: 'comeback', key: 'sk-auto\nsk-manual' }));
    await db.query(`UPDATE channels SET status = 3, other_info = '{"status_reason":"x","status_time":1}' WHERE id = ${Number(auto)}`);
    await call('PUT', '/api/channel/', { id: manual, status: 2 });

    await setOptions({ AutomaticEnableChannelEnabled: false });
    expect((await call('POST', `/api/channel/test/${auto}`)).success).toBe(true);
    expect((await get(auto!)).status).toBe(3);

    await setOptions({ AutomaticEnableChannelEnabled: true });
    await call('POST', `/api/channel/test/${auto}`);
    expect(await get(auto!)).toMatchObject({ status: 1, other_info: '{}' });
    expect((await call('POST', `/api/channel/test/${manual}`)).success).toBe(true);
    expect((await get(manual!)).status).toBe(2);
    expect(sent('/v1/chat/completions').map(keyOf)).toEqual(['sk-auto', 'sk-auto', 'sk-manual']);
    await setOptions({ AutomaticEnableChannelEnabled: false });
  });

  it('says so when the relay does not answer or refuses the request, without blaming the channel', async () => {
    await setOptions({ AutomaticDisableChannelEnabled: true });
    const id = await create({ name: 'orphan', key: 'sk-orphan' });
    const bus = gateway.env.infra.bus;
    await withRelayFailing(bus, new BusRequestError('no responder for relay.channel.operate', 'relay.channel.operate', 'no-responder'), async () => {
      expect(await call('POST', `/api/channel/test/${id}`)).toEqual({ success: false, message: 'relay: the relay did not answer; try again later' });
      expect(await call('POST', `/api/channel/update_balance/${id}`)).toEqual({ success: false, message: 'relay: the relay did not answer; try again later' });
      expect(await callInChinese('POST', `/api/channel/test/${id}`)).toEqual({ success: false, message: '转发服务没有响应，请稍后再试' });
    });
    expect(await get(id)).toMatchObject({ status: 1, test_time: 0, balance_updated_time: 0 });
    await withRelayFailing(bus, new BusRequestError('the relay refused the request', 'relay.channel.operate', 'remote-error', 'invalid_request'), async () => {
      expect(await call('GET', `/api/channel/fetch_models/${id}`)).toEqual({ success: false, message: 'relay: the relay refused the request' });
      expect(await callInChinese('GET', `/api/channel/fetch_models/${id}`)).toEqual({ success: false, message: '转发服务出错: the relay refused the request' });
    });
    expect(mock.requests).toEqual([]);

    // The relay back: the same channel tests fine.
    expect((await call('POST', `/api/channel/test/${id}`)).success).toBe(true);
  });

  it('tests every enabled or automatically disabled channel in the background', async () => {
    await clearChannels();
    await setOptions({ AutomaticDisableChannelEnabled: true, AutomaticEnableChannelEnabled: true });
    await create({ name: 'sweep-ok', key: 'sk-sweep-ok' });
    mock.keys['sk-sweep-revoked'] = 'status=401';
    const revoked = await create({ name: 'sweep-revoked', key: 'sk-sweep-revoked' });
    const auto = await create({ name: 'sweep-auto', key: 'sk-sweep-auto' });
    await db.query(`UPDATE channels SET status = 3 WHERE id = ${Number(auto)}`);
    const manual = await create({ name: 'sweep-manual', key: 'sk-sweep-manual' });
    await call('PUT', '/api/channel/', { id: manual, status: 2 });

    expect(await call('POST', '/api/channel/test')).toEqual({ success: true, message: 'testing all channels in the background; refresh to see the results' });
    await waitFor(async () => (await lastRun(JobName.ChannelsTestAll))?.outcome === 'ok', 10_000, 'the sweep recorded');
    expect((await lastRun(JobName.ChannelsTestAll))!.summary).toBe('tested 3 channels, 1 failed, 1 disabled, 1 enabled');
    // Each channel once, with its own key; the manually disabled one not at all.
    expect(sent('/v1/chat/completions').map(keyOf).sort()).toEqual(['sk-sweep-auto', 'sk-sweep-ok', 'sk-sweep-revoked']);
    expect((await get(revoked)).status).toBe(3);
    expect((await get(auto)).status).toBe(1);
    expect(await get(manual)).toMatchObject({ status: 2, test_time: 0 });
    await setOptions({ AutomaticEnableChannelEnabled: false });
  });

  it('reads balances, one and all enabled, without ever disabling on a balance', async () => {
    await clearChannels();
    await setOptions({ AutomaticDisableChannelEnabled: true });
    mock.keys['sk-rich'] = 'hard-limit=50,total-usage=750';
    const rich = await create({ name: 'rich', key: 'sk-rich' });
    expect(await call('POST', `/api/channel/update_balance/${rich}/`)).toEqual({ success: true, message: '', balance: 42.5, data: { balance: 42.5 } });
    expect(await get(rich)).toMatchObject({ balance: 42.5, balance_updated_time: expect.any(Number) });
    expect((await get(rich)).balance_updated_time).toBeGreaterThan(Date.now() / 1000 - 60);
    // The limit, then this month's usage, with the channel's key.
    const [subscription, usage] = mock.requests;
    expect(mock.requests).toHaveLength(2);
    expect(subscription).toMatchObject({ method: 'GET', path: '/v1/dashboard/billing/subscription' });
    expect(usage).toMatchObject({ method: 'GET', path: '/v1/dashboard/billing/usage' });
    expect(usage!.url).toMatch(/\?start_date=\d{4}-\d{2}-01&end_date=\d{4}-\d{2}-\d{2}$/);
    expect([subscription, usage].map((request) => keyOf(request!))).toEqual(['sk-rich', 'sk-rich']);

    mock.keys['sk-plain'] = 'nobilling';
    const plain = await create({ name: 'plain', key: 'sk-plain' });
    expect(await call('POST', `/api/channel/update_balance/${plain}`)).toEqual({
      success: false,
      message: 'balance update failed: the upstream has no balance endpoint',
    });
    expect(await callInChinese('POST', `/api/channel/update_balance/${plain}`)).toEqual({
      success: false,
      message: '余额更新失败: the upstream has no balance endpoint',
    });
    expect(await get(plain)).toMatchObject({ status: 1, balance_updated_time: 0 });

    // All enabled ones, each with its own figures: one spent to zero, one without the endpoints.
    mock.keys['sk-rich'] = 'hard-limit=50,total-usage=1000';
    mock.keys['sk-spent'] = 'hard-limit=10,total-usage=1000';
    const spent = await create({ name: 'spent', key: 'sk-spent' });
    const off = await create({ name: 'off', key: 'sk-off' });
    await call('PUT', '/api/channel/', { id: off, status: 2 });
    mock.reset();
    expect(await callInChinese('POST', '/api/channel/update_balance')).toEqual({ success: true, message: '已在后台开始更新所有已启用渠道的余额' });
    await waitFor(async () => (await lastRun(JobName.ChannelsBalanceAll))?.outcome === 'ok', 10_000, 'the balance sweep recorded');
    expect((await lastRun(JobName.ChannelsBalanceAll))!.summary).toBe(
      'updated 2 balances, 1 failed (balance update failed: the upstream has no balance endpoint)',
    );
    expect(sent('/v1/dashboard/billing/subscription').map(keyOf).sort()).toEqual(['sk-plain', 'sk-rich', 'sk-spent']);
    expect(await get(rich)).toMatchObject({ balance: 40, status: 1 });
    expect(await get(spent)).toMatchObject({ balance: 0, status: 1 }); // a zero balance never disables
    expect((await get(spent)).balance_updated_time).toBeGreaterThan(0);
    expect(await get(plain)).toMatchObject({ status: 1, balance_updated_time: 0 }); // nor does a failed read
    expect(await get(off)).toMatchObject({ status: 2, balance_updated_time: 0 });
  });

  it('fetches the upstream models of a stored channel and of an unsaved one', async () => {
    const id = await create({ name: 'lister', key: 'sk-lister' });
    expect(await call('GET', `/api/channel/fetch_models/${id}`)).toEqual({ success: true, message: '', data: ['mock-embed', 'mock-gpt', 'mock-gpt-mini'] });
    expect(mock.requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/v1/models', headers: expect.objectContaining({ authorization: 'Bearer sk-lister' }) }),
    ]);

    // Being filled in: another type, the first key of a batch, the editor's private-network switch.
    const unsaved = { type: 43, base_url: mock.url, key: 'sk-new-1\nsk-new-2', allow_private_network: true };
    expect(await call('POST', '/api/channel/fetch_models', unsaved)).toEqual({ success: true, message: '', data: ['mock-embed', 'mock-gpt', 'mock-gpt-mini'] });
    expect(mock.requests.map(keyOf)).toEqual(['sk-lister', 'sk-new-1']);
    expect((await call('POST', '/api/channel/fetch_models', { type: 43, key: '' })).message).toMatch(/^key\b/);
    expect((await call('POST', '/api/channel/fetch_models', { type: 999, key: 'k' })).message).toMatch(/^type\b/);

    mock.keys['sk-lister'] = 'status=401';
    expect(await call('GET', `/api/channel/fetch_models/${id}`)).toEqual({
      success: false,
      message: 'fetching the model list failed: mock upstream: status 401 as asked',
    });
    expect(await callInChinese('GET', `/api/channel/fetch_models/${id}`)).toEqual({
      success: false,
      message: '获取模型列表失败: mock upstream: status 401 as asked',
    });
    expect(await gateway.call('GET', '/api/channel/fetch_models/424242', { session: root })).toMatchObject({ statusCode: 404 });
  });

  it('lists known models per type, the enabled ones, and what users may call', async () => {
    await clearChannels();
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
