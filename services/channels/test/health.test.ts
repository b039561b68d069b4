import type { DataSource } from 'typeorm';
import { publishEvent, type BusEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { collectEvents, createChannels, setOption, startChannelsWorld, type ChannelsWorld } from './support/channels';

/**
 * How long a negative case waits when no later event can show it was handled: with the option
 * off a report changes nothing, so no sentinel can mark it done (a report takes milliseconds).
 */
const SETTLE_MS = 300;

describe.each(backends)('automatic disable and enable from relay reports (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let db: DataSource;
  let updated: BusEvent[];

  let world: ChannelsWorld | undefined;

  beforeAll(async () => {
    world = await startChannelsWorld(backend);
    ({ gateway, root, db, updated } = world);
  });
  afterAll(async () => {
    await world?.close();
  });

  const status = async (id: number) => (await gateway.call('GET', `/api/channel/${id}`, { session: root })).json().data.status as number;
  const fail = (channelId: number, facts: { status_code?: number; error_code?: string; error_type?: string; message?: string; test?: boolean } = {}) =>
    publishEvent(gateway.env.infra.bus, 'relay.channel.failed', {
      channel_id: channelId,
      request_id: `req-${Math.random()}`,
      status_code: 500,
      error_code: '',
      error_type: '',
      message: '',
      test: false,
      ...facts,
    });
  const succeed = (channelId: number, responseTimeMs = 100, test = false) =>
    publishEvent(gateway.env.infra.bus, 'relay.channel.succeeded', { channel_id: channelId, response_time_ms: responseTimeMs, test });
  /** Events of a subject are handled in order: once the sentinel changed, the earlier ones were handled. */
  const sentinelDisabled = async () => {
    const [sentinel] = await createChannels(gateway, root, { name: 'sentinel', key: `sk-sentinel-${Math.random()}` });
    await fail(sentinel!, { status_code: 401 });
    await waitFor(async () => (await status(sentinel!)) === 3, 5_000, 'sentinel disabled');
  };
  const sentinelEnabled = async () => {
    const [sentinel] = await createChannels(gateway, root, { name: 'sentinel', key: `sk-sentinel-${Math.random()}` });
    await db.query(`UPDATE channels SET status = 3 WHERE id = ${Number(sentinel)}`);
    await succeed(sentinel!);
    await waitFor(async () => (await status(sentinel!)) === 1, 5_000, 'sentinel enabled');
  };

  it('never disables while AutomaticDisableChannelEnabled is off', async () => {
    await setOption(gateway, root, 'AutomaticDisableChannelEnabled', false);
    const [id] = await createChannels(gateway, root, { name: 'guarded', key: 'sk-guarded' });
    await fail(id!, { status_code: 401, message: 'invalid key' });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS)); // fixed: nothing marks a report ignored (SETTLE_MS)
    expect(await status(id!)).toBe(1);
  });

  it('disables on the explicit rules, recording the reason and time, and publishes the change', async () => {
    await setOption(gateway, root, 'AutomaticDisableChannelEnabled', true);
    await setOption(gateway, root, 'AutomaticDisableKeywords', 'Your credit balance is too low\nquota has run dry');
    const alerts = await collectEvents(gateway.env.infra.bus, 'channels.channel.disabled');
    const ids = await createChannels(gateway, root, { name: 'rules', key: 'k-401\nk-code\nk-type\nk-word\nk-500\nk-gemini' });
    const [by401, byCode, byType, byKeyword, by500] = ids;
    const [gemini] = await createChannels(gateway, root, { name: 'gemini', type: 24, key: 'k-g', models: 'gemini-2.0-flash' });
    await fail(by401!, { status_code: 401, message: 'Incorrect API key' });
    await fail(byCode!, { status_code: 400, error_code: 'account_deactivated' });
    await fail(byType!, { status_code: 429, error_type: 'insufficient_quota' });
    await fail(byKeyword!, { status_code: 400, message: 'Sorry: QUOTA HAS RUN DRY today' });
    await fail(by500!, { status_code: 500, message: 'overloaded' });
    await fail(gemini!, { status_code: 403, message: 'API key not valid' });
    await sentinelDisabled();

    for (const id of [by401, byCode, byType, byKeyword, gemini]) expect(await status(id!)).toBe(3);
    expect(await status(by500!)).toBe(1);
    const view = (await gateway.call('GET', `/api/channel/${byKeyword}`, { session: root })).json().data;
    expect(JSON.parse(view.other_info)).toEqual({
      status_reason: 'message contains "quota has run dry": Sorry: QUOTA HAS RUN DRY today',
      status_time: expect.any(Number),
    });
    expect(
      Number(
        (await db.query(`SELECT COUNT(*) AS n FROM abilities WHERE channel_id = ${Number(by401)} AND enabled = ${backend === 'real' ? 'true' : '1'}`))[0].n,
      ),
    ).toBe(0);
    await waitFor(
      () => updated.some((event) => (event.data as { id: number; status: number }).id === by401 && (event.data as { status: number }).status === 3),
      5_000,
      'disable published',
    );
    // Each automatic disable is announced once, after its commit, for the notifier's alert to root.
    await waitFor(() => alerts.length >= 6, 5_000, 'disables announced');
    const announced = alerts.map((event) => event.data as { channel_id: number; name: string; reason: string; time: number });
    const byId = (a: number, b: number) => a - b;
    expect(
      announced
        .filter((alert) => alert.name !== 'sentinel')
        .map((alert) => alert.channel_id)
        .sort(byId),
    ).toEqual([by401!, byCode!, byType!, byKeyword!, gemini!].sort(byId));
    expect(announced.find((alert) => alert.channel_id === byKeyword)).toEqual({
      channel_id: byKeyword,
      name: 'rules',
      reason: 'message contains "quota has run dry": Sorry: QUOTA HAS RUN DRY today',
      time: JSON.parse(view.other_info).status_time,
    });
  });

  it('never disables a channel with auto_ban 0, nor touches a manually disabled one', async () => {
    const [noBan] = await createChannels(gateway, root, { name: 'no-ban', key: 'k-noban', auto_ban: 0 });
    const [manual] = await createChannels(gateway, root, { name: 'manual', key: 'k-manual' });
    await gateway.call('PUT', '/api/channel/', { session: root, body: { id: manual, status: 2 } });
    await fail(noBan!, { status_code: 401 });
    await fail(manual!, { status_code: 401 });
    await sentinelDisabled();
    expect(await status(noBan!)).toBe(1);
    expect(await status(manual!)).toBe(2);
    expect((await gateway.call('GET', `/api/channel/${manual}`, { session: root })).json().data.other_info).toBe('{}');
  });

  it('re-enables only automatically disabled channels, only while AutomaticEnableChannelEnabled is on', async () => {
    const [auto, manual, slow] = await createChannels(gateway, root, { name: 'recover', key: 'k-auto\nk-man\nk-slow' });
    await db.query(`UPDATE channels SET status = 3 WHERE id IN (${Number(auto)}, ${Number(slow)})`);
    await gateway.call('PUT', '/api/channel/', { session: root, body: { id: manual, status: 2 } });

    await setOption(gateway, root, 'AutomaticEnableChannelEnabled', false);
    await succeed(auto!);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS)); // fixed: nothing marks a report ignored (SETTLE_MS)
    expect(await status(auto!)).toBe(3);

    await setOption(gateway, root, 'AutomaticEnableChannelEnabled', true);
    await setOption(gateway, root, 'ChannelDisableThreshold', 2);
    await succeed(manual!);
    await succeed(slow!, 3_000, true); // a test that passed too slowly
    await succeed(auto!);
    await waitFor(async () => (await status(auto!)) === 1, 5_000, 'auto-disabled channel enabled');
    await sentinelEnabled();
    expect(await status(manual!)).toBe(2);
    expect(await status(slow!)).toBe(3);
    await setOption(gateway, root, 'AutomaticEnableChannelEnabled', false);
  });

  it('ignores reports about channels that do not exist', async () => {
    await fail(424242, { status_code: 401 });
    await succeed(424242);
    await sentinelDisabled();
  });
});
