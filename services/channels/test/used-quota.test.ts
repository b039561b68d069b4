import { eventExamples } from '@aigw/contracts';
import { publishEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { createChannels, startChannelsWorld, type ChannelsWorld } from './support/channels';

/** A channel's used quota follows the relay's usage records, group-committed (usage.ts): every charge counted, once. */
describe.each(backends)("a channel's used quota (%s)", (backend) => {
  let world: ChannelsWorld | undefined;

  beforeAll(async () => {
    world = await startChannelsWorld(backend);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('sums hundreds of concurrent records per channel, skipping uncharged ones and requests no channel served', async () => {
    const { gateway, root } = world!;
    const channels: number[] = [];
    for (const name of ['used-a', 'used-b', 'used-c']) channels.push(...(await createChannels(gateway, root, { name, key: `sk-${name}` })));
    const expected = new Map<number, number>(channels.map((id) => [id, 0]));
    const records = Array.from({ length: 600 }, (_, index) => {
      const channel = index % 7 === 0 ? 0 : channels[index % channels.length]!;
      const quota = index % 5 === 0 ? 0 : 1 + ((index * 7919) % 100_000);
      if (channel > 0) expected.set(channel, expected.get(channel)! + quota);
      return { ...eventExamples['relay.usage.recorded'], request_id: `used-${backend}-${index}`, channel_id: channel, quota };
    });
    await Promise.all(records.map((record) => publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', record, record.request_id)));

    const used = async (id: number) => (await gateway.call('GET', `/api/channel/${id}`, { session: root })).json().data.used_quota as number;
    await waitFor(
      async () => (await Promise.all(channels.map(used))).every((value, index) => value === expected.get(channels[index]!)),
      15_000,
      'used quota summed',
    );
  });

  it('keeps pace with thousands of records a second (groups of up to 500 per write)', async () => {
    const { gateway, root } = world!;
    const [channel] = await createChannels(gateway, root, { name: 'used-burst', key: 'sk-used-burst' });
    const records = Array.from({ length: 6_000 }, (_, index) => ({
      ...eventExamples['relay.usage.recorded'],
      request_id: `burst-${backend}-${index}`,
      channel_id: channel!,
      quota: 1 + (index % 10),
    }));
    const expected = records.reduce((sum, record) => sum + record.quota, 0);
    // In waves, as requests end: sixteen deliveries of one event each counted about 300 a second,
    // so these took 20 s and a busy relay left the consumer ever further behind.
    for (let wave = 0; wave < records.length; wave += 500) {
      await Promise.all(
        records.slice(wave, wave + 500).map((record) => publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', record, record.request_id)),
      );
    }

    await waitFor(
      async () => (await gateway.call('GET', `/api/channel/${channel}`, { session: root })).json().data.used_quota === expected,
      8_000,
      'the burst counted',
    );
  });
});
