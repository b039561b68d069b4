import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/**
 * Channel balances through each provider's own query (channels asks the relay, which owns the
 * protocols): OpenAI's billing dashboards for the OpenAI-compatible family, SiliconFlow's user
 * info, DeepSeek's balance and OpenRouter's credits, against the mock's figures (100 USD limit).
 */
describe('channel balances by provider', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    world.mock.billing.totalUsage = 1234; // cents
  });
  afterAll(async () => {
    await world?.close();
  });

  const update = async (id: number) => (await world.gateway.call('POST', `/api/channel/update_balance/${id}`, { session: world.root })).json();

  it.each([
    ['OpenAI (dashboards)', 1],
    ['SiliconFlow', 40],
    ['DeepSeek', 43],
    ['OpenRouter', 20],
    ['Moonshot (dashboards)', 25],
  ])('reads the balance of a %s channel', async (_name, type) => {
    const id = await world.addChannel({ name: `balance-${type}`, type, models: `mock-balance-${type}` });
    expect(await update(id)).toMatchObject({ success: true, balance: 87.66 });
    const paths = world.mock.requests.map((entry) => entry.path);
    if (type === 40) expect(paths).toContain('/v1/user/info');
    if (type === 43) expect(paths).toContain('/user/balance');
    if (type === 20) expect(paths).toContain('/v1/credits');
  });

  it('says so when a channel type has no balance query, or the upstream has none', async () => {
    const anthropic = await world.addChannel({ name: 'balance-anthropic', type: 14, models: 'mock-balance-claude' });
    expect(await update(anthropic)).toMatchObject({ success: false, message: 'balance update failed: this channel type has no balance query' });
    const without = await world.addChannel({ name: 'balance-none', type: 43, key: 'mock-key', models: 'mock-balance-none' });
    world.mock.keys['mock-key-nobilling'] = 'nobilling';
    await world.gateway.call('PUT', '/api/channel/', { session: world.root, body: { id: without, key: 'mock-key-nobilling' } });
    expect(await update(without)).toMatchObject({ success: false, message: 'balance update failed: the upstream answered HTTP 404 to its balance query' });
  });
});
