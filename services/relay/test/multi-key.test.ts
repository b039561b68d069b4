import OpenAI from 'openai';
import type { RoutingChannel } from '@aigw/contracts';
import { createSilentLogger } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { createChannelDirectory, type ChannelDirectory } from '../src/channels';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/**
 * Channels with many keys through the relay (docs/architecture.md section 5.7): one channel, its
 * keys picked at random or in turn (the turn shared by the relay's instances through the Kv
 * port), a key that fails an auth rule disabled on its own while the others serve, the channel
 * disabled only when every key is, and the admin's key list (masked) with its actions.
 */
describe.each(backends)('multi-key channels (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  /** A second relay instance's channel directory: its own routing copy and key cache on the same bus and Kv. */
  let second: ChannelDirectory | undefined;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    const { bus, kv } = world.gateway.env.infra;
    second = await createChannelDirectory({ bus, kv, logger: createSilentLogger() });
    await world.setOption('AutomaticDisableChannelEnabled', true);
    await world.setOption('AutomaticEnableChannelEnabled', true);
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await second?.close();
    await world?.close();
  });

  const admin = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    (await world.gateway.call(method, url, { session: world.root, body })).json();
  const manage = (channelId: number, action: string, keyIndex?: number) =>
    admin('POST', '/api/channel/multi_key/manage', { channel_id: channelId, action, ...(keyIndex === undefined ? {} : { key_index: keyIndex }) });
  const view = async (id: number) => (await admin('GET', `/api/channel/${id}`)).data;
  /** The keys the mock received for a model, in order. */
  const keysSent = (model: string) =>
    world.mock.requests.filter((entry) => entry.body?.model === model).map((entry) => String(entry.headers.authorization).replace(/^Bearer /, ''));
  const chat = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  /**
   * Waits until the relays' copies of the channel changed as `ready` says: the second directory's
   * copy, which gets each update on the same bus connection right after the gateway's relay.
   */
  const relayed = async (id: number, ready: (channel: RoutingChannel) => boolean) => {
    await waitFor(async () => Boolean(second!.index.get(id) && ready(second!.index.get(id)!)), 10_000, `relay sees channel ${id}`);
  };

  it('creates one channel holding every key, shown with its mode and live count; batch create without a mode still makes one per key', async () => {
    const id = await world.addChannel({ name: 'many', models: 'mock-many', key: 'mk-a1\nmk-a2\nmk-a3', multi_key_mode: 'random' });
    expect(await view(id)).toMatchObject({ name: 'many', multi_key: { mode: 'random', size: 3, live: 3 } });
    const list = await manage(id, 'get_key_status');
    expect(list.data).toEqual({
      mode: 'random',
      size: 3,
      live: 3,
      keys: [0, 1, 2].map((index) => ({ index, masked: '****', status: 1, reason: '', time: 0 })),
    });
    // The key list never carries a key.
    expect(JSON.stringify(list)).not.toContain('mk-a');
    const batch = await admin('POST', '/api/channel/', {
      type: 1,
      name: 'batch',
      group: 'default',
      models: 'mock-batch',
      key: 'mk-b1\nmk-b2',
      base_url: world.mock.url,
    });
    expect(batch.data.ids).toHaveLength(2);
    expect((await view(batch.data.ids[0])).multi_key).toBeNull();
  });

  it('spreads requests over the keys at random', async () => {
    await world.addChannel({ name: 'random', models: 'mock-random', key: 'mk-r1\nmk-r2\nmk-r3', multi_key_mode: 'random' });
    await world.waitForModel('mock-random');
    for (let turn = 0; turn < 30; turn++) await chat('mock-random');
    const sent = keysSent('mock-random');
    expect(sent).toHaveLength(30);
    // Each of 3 keys missed by 30 uniform picks has a chance of 3 x (2/3)^30, about 1 in 190,000.
    expect(new Set(sent)).toEqual(new Set(['mk-r1', 'mk-r2', 'mk-r3']));
  });

  it('takes the keys in turn in polling mode, one turn shared by two relay instances', async () => {
    const id = await world.addChannel({ name: 'polling', models: 'mock-polling', key: 'mk-p1\nmk-p2\nmk-p3', multi_key_mode: 'polling' });
    await world.waitForModel('mock-polling');
    for (let turn = 0; turn < 6; turn++) await chat('mock-polling');
    expect(keysSent('mock-polling')).toEqual(['mk-p1', 'mk-p2', 'mk-p3', 'mk-p1', 'mk-p2', 'mk-p3']);

    // The second relay instance takes its turns from the same counter.
    await relayed(id, () => true);
    const channel = second!.index.get(id)!;
    const picks: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      await chat('mock-polling');
      picks.push(keysSent('mock-polling').at(-1)!, (await second!.pick(channel)).key);
    }
    expect(picks).toEqual(['mk-p1', 'mk-p2', 'mk-p3', 'mk-p1', 'mk-p2', 'mk-p3']);
  });

  it('disables a failing key on its own and keeps serving from the others; every key failing disables the channel', async () => {
    world.mock.keys['mk-bad1'] = 'status=401';
    world.mock.keys['mk-bad2'] = 'status=401';
    const id = await world.addChannel({ name: 'one bad', models: 'mock-bad', key: 'mk-good\nmk-bad1\nmk-bad2', multi_key_mode: 'polling' });
    await world.waitForModel('mock-bad');
    // In turn: good, bad1 (refused: 401 to the client, the key disabled), ...
    await chat('mock-bad');
    await expect(chat('mock-bad')).rejects.toMatchObject({ status: 401 });
    await waitFor(async () => (await view(id)).multi_key?.live === 2, 10_000, 'bad key disabled');
    const list = (await manage(id, 'get_key_status')).data;
    expect(list.keys[1]).toEqual({ index: 1, masked: '****', status: 3, reason: expect.stringContaining('status 401'), time: expect.any(Number) });
    expect((await view(id)).status).toBe(1);

    // The relay no longer picks the disabled key; the other bad one fails once and goes too.
    await relayed(id, (channel) => channel.multi_key?.disabled.includes(1) === true);
    for (let turn = 0; turn < 3; turn++) await chat('mock-bad').catch(() => null);
    await waitFor(async () => (await view(id)).multi_key?.live === 1, 10_000, 'second bad key disabled');
    await relayed(id, (channel) => channel.multi_key?.disabled.length === 2);
    const before = keysSent('mock-bad').length;
    for (let turn = 0; turn < 4; turn++) await chat('mock-bad');
    expect(keysSent('mock-bad').slice(before)).toEqual(['mk-good', 'mk-good', 'mk-good', 'mk-good']);

    // The last key failing disables the channel, naming why.
    world.mock.keys['mk-good'] = 'status=401';
    await expect(chat('mock-bad')).rejects.toMatchObject({ status: 401 });
    await waitFor(async () => (await view(id)).status === 3, 10_000, 'channel disabled');
    expect(JSON.parse((await view(id)).other_info).status_reason).toMatch(/^every key is disabled; the last: status 401/);
    expect((await view(id)).multi_key).toEqual({ mode: 'polling', size: 3, live: 0 });
    delete world.mock.keys['mk-good'];

    // A key test that passes brings its key, and with it the channel, back (AutomaticEnableChannelEnabled).
    const tested = await admin('POST', `/api/channel/test/${id}?key_index=0&model=mock-bad`);
    expect(tested.success).toBe(true);
    expect(await view(id)).toMatchObject({ status: 1, multi_key: { live: 1 } });
    expect(world.mock.requests.at(-1)!.headers.authorization).toBe('Bearer mk-good');
    // A key that still fails its test stays off.
    expect((await admin('POST', `/api/channel/test/${id}?key_index=1&model=mock-bad`)).success).toBe(false);
    expect((await manage(id, 'get_key_status')).data.keys.map((key: { status: number }) => key.status)).toEqual([1, 3, 3]);
    expect((await admin('POST', `/api/channel/test/${id}?key_index=7`)).message).toBe('key_index: the channel has 3 keys (0 to 2)');
    delete world.mock.keys['mk-bad1'];
    delete world.mock.keys['mk-bad2'];
  });

  it('lets an admin enable, disable and remove keys, and replace or append to them', async () => {
    const id = await world.addChannel({
      name: 'managed',
      models: 'mock-managed',
      key: 'mk-m1-long-enough\nmk-m2-long-enough\nmk-m3-long-enough',
      multi_key_mode: 'random',
    });
    const disabled = await manage(id, 'disable_key', 2);
    expect(disabled.data.keys[2]).toMatchObject({ index: 2, masked: 'mk-m****ough', status: 2, reason: 'disabled by an admin' });
    expect((await manage(id, 'disable_key', 1)).data.live).toBe(1);
    expect(await manage(id, 'disable_key', 0)).toMatchObject({
      success: false,
      message: 'key_index: the last live key cannot be disabled; disable the channel instead',
    });
    expect(await manage(id, 'enable_key')).toMatchObject({ success: false, message: 'key_index is required' });
    expect(await manage(id, 'enable_key', 9)).toMatchObject({ success: false, message: 'key_index: the channel has 3 keys (0 to 2)' });
    expect((await manage(id, 'enable_key', 1)).data.live).toBe(2);

    // Removing the disabled keys keeps the others with their states, renumbered.
    const removed = await manage(id, 'delete_disabled_keys');
    expect(removed.data).toMatchObject({ size: 2, live: 2 });
    await world.waitForModel('mock-managed');
    for (let turn = 0; turn < 12; turn++) await chat('mock-managed');
    expect(new Set(keysSent('mock-managed'))).toEqual(new Set(['mk-m1-long-enough', 'mk-m2-long-enough']));

    // Append adds keys (the old ones keep their states); a plain key edit replaces them all.
    await manage(id, 'disable_key', 0);
    const appended = await admin('PUT', '/api/channel/', { id, key: 'mk-m4-long-enough\nmk-m2-long-enough', key_mode: 'append', multi_key_mode: 'polling' });
    expect(appended.success).toBe(true);
    expect((await manage(id, 'get_key_status')).data).toMatchObject({ mode: 'polling', size: 3, live: 2, keys: [{ status: 2 }, { status: 1 }, { status: 1 }] });
    await admin('PUT', '/api/channel/', { id, key: 'mk-m5-long-enough' });
    expect((await manage(id, 'get_key_status')).data).toMatchObject({ mode: 'polling', size: 1, live: 1 });
    expect((await manage(id, 'enable_all_keys')).data.live).toBe(1);

    // A channel with one key has no key list, and several keys need a mode.
    const single = await world.addChannel({ name: 'single', models: 'mock-single', key: 'mk-s1' });
    expect(await manage(single, 'get_key_status')).toMatchObject({ success: false, message: `channel_id: channel ${single} has one key, not many` });
    expect(await admin('PUT', '/api/channel/', { id: single, key: 'mk-s2\nmk-s3' })).toMatchObject({
      success: false,
      message: 'key: several keys make a channel with many keys; choose multi_key_mode (random or polling)',
    });
    expect(await manage(999_999, 'enable_all_keys')).toMatchObject({ success: false, message: 'channel not found' });
  });
});
