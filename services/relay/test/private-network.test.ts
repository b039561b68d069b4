import { localizeMessage } from '@aigw/contracts';
import { requestTyped } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/**
 * Issue 22.10 (rule R2): the relay reaches a private upstream only for a channel whose own flag
 * allows it; the global AllowPrivateNetworkUpstreams (the default new channels take) opens no
 * other channel and closes none. Requests and channel operations (test, model list) alike.
 */
describe.each(backends)('private upstreams, channel by channel (%s)', (backend) => {
  let world: RelayWorld;
  let open: number;
  let closed: number;

  beforeAll(async () => {
    // The world turns the global option on, so channels it adds may reach the loopback mock.
    world = await startRelayWorld(backend);
    open = await world.addChannel({ name: 'open', models: 'mock-gpt' });
    closed = await world.addChannel({ name: 'closed', models: 'mock-closed', model_mapping: JSON.stringify({ 'mock-closed': 'mock-gpt' }) });
    const cleared = (await world.gateway.call('PUT', '/api/channel/', { session: world.root, body: { id: closed, allow_private_network: false } })).json();
    expect(cleared.success).toBe(true);
    await world.waitForModel('mock-gpt');
    await world.waitForModel('mock-closed');
  });
  afterAll(async () => {
    await world?.close();
  });

  const chat = (model: string) =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  /** The routing row channels hands the relay for channel operations. */
  const routingRow = async (id: number) =>
    (await requestTyped(world.gateway.env.infra.bus, 'channels.routing.snapshot', {})).channels.find((channel) => channel.id === id)!;
  const operate = async (id: number, operation: 'test' | 'models') =>
    requestTyped(
      world.gateway.env.infra.bus,
      'relay.channel.operate',
      { operation, channel: await routingRow(id), key: 'mock-key', model: '' },
      { timeoutMs: 10_000 },
    );

  it('refuses the loopback upstream of a channel without the flag, whatever the global option says', async () => {
    const seen = world.mock.requests.length;
    await waitFor(async () => (await chat('mock-closed')).status === 502, 5_000, 'the closed channel blocked');
    const body = (await (await chat('mock-closed')).json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_address_blocked');
    expect(body.error.message).not.toMatch(/127\.0\.0\.1|mock-key/);
    expect((await chat('mock-gpt')).status).toBe(200);
    // Only the open channel's request reached the mock.
    expect(world.mock.requests.length).toBe(seen + 1);
  });

  it('keeps serving a channel with the flag after the global option is switched off', async () => {
    await world.setOption('AllowPrivateNetworkUpstreams', false);
    try {
      await waitFor(
        async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.AllowPrivateNetworkUpstreams === false,
        5_000,
        'relay options',
      );
      expect((await chat('mock-gpt')).status).toBe(200);
      expect((await chat('mock-closed')).status).toBe(502);
    } finally {
      await world.setOption('AllowPrivateNetworkUpstreams', true);
    }
  });

  it('tests and lists models with the same per-channel flag', async () => {
    expect(await operate(open, 'test')).toMatchObject({ ok: true });
    expect(await operate(open, 'models')).toMatchObject({ ok: true, models: expect.arrayContaining(['mock-gpt']) });
    for (const operation of ['test', 'models'] as const) {
      const refused = await operate(closed, operation);
      expect(refused.ok).toBe(false);
      // The egress guard's words travel as a catalogue message, worded where channels answers the console.
      expect(localizeMessage(refused.message, 'en-US')).toMatch(/egress blocked: 127\.0\.0\.1 is a loopback address .*allow_private_network/);
    }
  });
});
