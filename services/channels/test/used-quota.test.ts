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
});
