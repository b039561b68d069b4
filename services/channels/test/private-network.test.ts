import { Writable } from 'node:stream';
import { createLogger, requestTyped } from '@aigw/platform';
import { backends, createTestEnvironment, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { collectEvents, createChannels, openChannelsDatabase, ordinaryUser, setOption } from './support/channels';
import type { BusEvent } from '@aigw/platform';

/**
 * Issue 22.10 (rule R2): reaching private networks is a flag of each channel, off by default,
 * audit-logged with who set it; the global AllowPrivateNetworkUpstreams is only the default a new
 * channel takes. The routing row carries the flag to the relay, for requests and for channel
 * tests, model lists and balances alike: the relay of the same gateway reaches the loopback mock
 * upstream for a channel with the flag and refuses it for one without.
 */
describe.each(backends)('the per-channel private-network flag (%s)', (backend) => {
  let env: TestEnvironment;
  let gateway: TestGateway;
  let mock: MockUpstream;
  let root: Session;
  let admin: Session;
  let updated: BusEvent[];
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    // The services log through the infrastructure's logger: one whose lines the test reads.
    env = await createTestEnvironment(backend, createLogger({ level: 'info', service: 'channels' }, stream));
    mock = await startMockUpstream({ models: ['m1'] });
    gateway = await startGateway(backend, {}, env);
    root = await gateway.login('root', ROOT_PASSWORD);
    admin = await ordinaryUser(gateway, 'netadmin');
    expect((await gateway.call('POST', '/api/user/manage', { session: root, body: { id: admin.id, action: 'promote' } })).json().success).toBe(true);
    updated = await collectEvents(gateway.env.infra.bus, 'channels.channel.updated');
  });
  afterAll(async () => {
    await gateway?.close();
    await env?.cleanup();
    await mock?.close();
  });

  const view = async (id: number) => (await gateway.call('GET', `/api/channel/${id}`, { session: admin })).json().data as { allow_private_network: boolean };
  const routingRow = async (id: number) =>
    (await requestTyped(gateway.env.infra.bus, 'channels.routing.snapshot', {})).channels.find((channel) => channel.id === id)!;
  const auditLines = (id: number) => lines.filter((line) => line.channelId === id && 'allow_private_network' in line);

  it('is off for a new channel, and takes the global option as it is when the channel is created', async () => {
    const [closed] = await createChannels(gateway, admin, { name: 'closed' });
    expect(await view(closed!)).toMatchObject({ allow_private_network: false });
    expect(await routingRow(closed!)).toMatchObject({ allow_private_network: false });

    await setOption(gateway, root, 'AllowPrivateNetworkUpstreams', true);
    const [open] = await createChannels(gateway, admin, { name: 'open' });
    expect(await view(open!)).toMatchObject({ allow_private_network: true });
    // The switch opened no channel that existed before it.
    expect(await view(closed!)).toMatchObject({ allow_private_network: false });
    await waitFor(
      () =>
        updated.some(
          (event) =>
            (event.data as { id: number; allow_private_network: boolean }).id === open &&
            (event.data as { allow_private_network: boolean }).allow_private_network,
        ),
      5_000,
      'routing row of the open channel',
    );

    await setOption(gateway, root, 'AllowPrivateNetworkUpstreams', false);
    expect(await view(open!)).toMatchObject({ allow_private_network: true });
    expect(await routingRow(open!)).toMatchObject({ allow_private_network: true });
    // Taking the default from the option is audited too: the channel can reach private networks.
    expect(auditLines(open!)).toEqual([expect.objectContaining({ allow_private_network: true, actorId: admin.id, level: 40 })]);
  });

  it('is set and cleared by an admin, each change audit-logged with who made it', async () => {
    const [id] = await createChannels(gateway, admin, { name: 'edited', allow_private_network: false });
    expect(auditLines(id!)).toEqual([]);
    expect((await gateway.call('PUT', '/api/channel/', { session: admin, body: { id, allow_private_network: true } })).json().success).toBe(true);
    expect(await view(id!)).toMatchObject({ allow_private_network: true });
    expect(await routingRow(id!)).toMatchObject({ allow_private_network: true });
    expect((await gateway.call('PUT', '/api/channel/', { session: root, body: { id, allow_private_network: false } })).json().success).toBe(true);
    expect(await view(id!)).toMatchObject({ allow_private_network: false });
    expect(auditLines(id!)).toEqual([
      expect.objectContaining({ allow_private_network: true, actorId: admin.id, level: 40, msg: expect.stringMatching(/private network/) }),
      expect.objectContaining({ allow_private_network: false, actorId: root.id }),
    ]);
    // An edit that does not touch the flag logs nothing.
    expect((await gateway.call('PUT', '/api/channel/', { session: admin, body: { id, name: 'renamed' } })).json().success).toBe(true);
    expect(auditLines(id!)).toHaveLength(2);
    // A flag that is not a boolean is refused, naming the field.
    expect((await gateway.call('PUT', '/api/channel/', { session: admin, body: { id, allow_private_network: 'yes' } })).json()).toMatchObject({
      success: false,
      message: expect.stringMatching(/^allow_private_network/),
    });
  });

  it('goes to the relay with the channel for tests, balances and model lists, saved or being filled in', async () => {
    const [open] = await createChannels(gateway, admin, { name: 'ops-open', key: 'sk-open', base_url: mock.url, allow_private_network: true });
    const [closed] = await createChannels(gateway, admin, { name: 'ops-closed', key: 'sk-closed', base_url: mock.url });
    const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => (await gateway.call(method, url, { session: admin, body })).json();
    const blocked = { success: false, message: expect.stringMatching(/egress blocked: 127\.0\.0\.1 is a loopback address .*allow_private_network/) };
    mock.reset();

    expect(await call('GET', `/api/channel/fetch_models/${open}`)).toEqual({ success: true, message: '', data: ['m1'] });
    expect(await call('POST', `/api/channel/test/${open}?model=m1`)).toMatchObject({ success: true });
    expect(await call('POST', `/api/channel/update_balance/${open}`)).toMatchObject({ success: true, balance: 100 });
    expect(await call('GET', `/api/channel/fetch_models/${closed}`)).toEqual(blocked);
    expect(await call('POST', `/api/channel/test/${closed}?model=m1`)).toMatchObject(blocked);
    expect(await call('POST', `/api/channel/update_balance/${closed}`)).toEqual(blocked);
    // Only the open channel reached the upstream.
    expect(mock.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ['/v1/models', 'Bearer sk-open'],
      ['/v1/chat/completions', 'Bearer sk-open'],
      ['/v1/dashboard/billing/subscription', 'Bearer sk-open'],
      ['/v1/dashboard/billing/usage', 'Bearer sk-open'],
    ]);

    mock.reset();
    const unsaved = (allow_private_network?: boolean) =>
      call('POST', '/api/channel/fetch_models', { type: 1, base_url: mock.url, key: `sk-unsaved-${allow_private_network}`, allow_private_network });
    expect(await unsaved(true)).toEqual({ success: true, message: '', data: ['m1'] });
    expect(await unsaved(false)).toEqual(blocked);
    // Without the flag an unsaved channel is what a new one would be: the global default, off here.
    expect(await unsaved(undefined)).toEqual(blocked);
    expect(mock.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-unsaved-true']);
  });
});

describe.each(backends)('channels from before the flag (%s)', (backend) => {
  let env: TestEnvironment;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    env = await createTestEnvironment(backend, createLogger({ level: 'info', service: 'channels' }, stream));
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('take the global option once at start (what they obeyed until then), audit-logged', async () => {
    const first = await startGateway(backend, {}, env);
    const root = await first.login('root', ROOT_PASSWORD);
    const [id] = await createChannels(first, root, { name: 'legacy' });
    await setOption(first, root, 'AllowPrivateNetworkUpstreams', true);
    await first.close();

    // The row as the upgrade finds it: the column is new, so null.
    const db = await openChannelsDatabase(env);
    await db.query('UPDATE channels SET allow_private_network = NULL');
    await db.destroy();

    const second = await startGateway(backend, {}, env);
    try {
      const again = await second.login('root', ROOT_PASSWORD);
      expect((await second.call('GET', `/api/channel/${id}`, { session: again })).json().data).toMatchObject({ allow_private_network: true });
      expect((await requestTyped(env.infra.bus, 'channels.routing.snapshot', {})).channels.find((channel) => channel.id === id)).toMatchObject({
        allow_private_network: true,
      });
      expect(lines.filter((line) => line.channelId === id && line.change === 'adopted')).toEqual([
        expect.objectContaining({ allow_private_network: true, level: 40 }),
      ]);
    } finally {
      await second.close();
    }
  });
});
