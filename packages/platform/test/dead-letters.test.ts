import type { MigrationInterface, QueryRunner } from 'typeorm';
import { deadLetterSubjects, type DeadLetterRecorded, type DeadLetterService, type DeadLetterView, type Page } from '@aigw/contracts';
import { createApp, type App } from '../src/app';
import { useAccessControl } from '../src/auth';
import type { BusEvent } from '../src/bus/bus';
import { openDatabase } from '../src/database/data-source';
import { createDeadLetterTable, deadLetterEntities, deadLetterRoutes, keepDeadLetters, type DeadLetters } from '../src/dead-letters/index';
import { createSilentLogger } from '../src/logger';
import { backends, createTestEnvironment, waitFor, type TestEnvironment } from '../src/testing/index';

/** What each service's migration 1733900000000-dead-letters.ts does, for two stand-in services. */
function migrationOf(service: DeadLetterService) {
  return class DeadLetters1733900000000 implements MigrationInterface {
    name = `DeadLetters${service}1733900000000`;
    async up(runner: QueryRunner): Promise<void> {
      await createDeadLetterTable(runner, service);
    }
    async down(): Promise<void> {}
  };
}

const root = { userId: 1, username: 'root', role: 100, group: 'default' };

/**
 * Dead letters end to end (issue 19, item 3): a consumer that fails its last delivery leaves the
 * event in its own service's database, announced once; root lists it and replays it once fixed.
 * Two services share one bus (and, on SQLite, one file) as in the all-in-one process.
 */
describe.each(backends)('dead letters (%s)', (backend) => {
  let env: TestEnvironment;
  let app: App;
  const services = {} as Record<'billing' | 'channels', DeadLetters>;
  const announced: Array<BusEvent & { data: DeadLetterRecorded }> = [];
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    env = await createTestEnvironment(backend);
    const logger = createSilentLogger();
    app = createApp({ logger, bodyLimitBytes: 1024 * 1024 });
    // The all-in-one gateway sets the caller in-process; here it is always root.
    app.addHook('onRequest', async (request) => void (request.auth = root));
    for (const service of ['billing', 'channels'] as const) {
      const db = await openDatabase({
        url: env.databaseUrl,
        dataDir: env.dataDir,
        schema: env.schema(service),
        entities: [deadLetterEntities[service]],
        migrations: [migrationOf(service)],
        logger,
      });
      closers.push(() => db.destroy());
      services[service] = keepDeadLetters(env.infra.bus, service, { db, logger });
      await app.register(async (scope) => {
        useAccessControl(scope, service);
        await scope.register(deadLetterRoutes, { deadLetters: services[service] });
      });
    }
    for (const subject of Object.values(deadLetterSubjects)) {
      await env.infra.bus.subscribe(subject, async (event) => void announced.push(event as BusEvent & { data: DeadLetterRecorded }), {});
    }
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    for (const service of Object.values(services)) await service.bus.close();
    for (const close of closers) await close();
    await env?.cleanup();
  });

  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, locale = 'en-US') =>
    (await app.inject({ method, url, headers: { 'accept-language': locale } })).json();
  const list = async (service: string, query = '') => (await call('GET', `/api/dead_letter/${service}/${query}`)).data as Page<DeadLetterView>;

  it("keeps a poisoned event in the failing consumer's service only, announces it once, and replays it once fixed", async () => {
    let fixed = false;
    const credited: number[] = [];
    const seenByChannels: number[] = [];
    // Small delivery settings: the services' own consumers keep theirs.
    await services.billing.bus.subscribe(
      'relay.usage.recorded',
      async (event) => {
        const { quota } = event.data as { quota: number };
        if (!fixed) throw new Error('ledger table is locked');
        credited.push(quota);
      },
      { durable: 'billing-usage-test', maxDeliver: 2, retryDelayMs: 20 },
    );
    await services.channels.bus.subscribe('relay.usage.recorded', async (event) => void seenByChannels.push((event.data as { quota: number }).quota), {
      durable: 'channels-usage-test',
    });

    const poison = await env.infra.bus.publish('relay.usage.recorded', { quota: 1_134 });

    await waitFor(async () => (await list('billing')).total === 1, 10_000, 'the dead letter stored');
    const page = await list('billing');
    expect(page).toEqual({ items: [expect.any(Object)], total: 1, page: 1, page_size: 10 });
    const [letter] = page.items;
    expect(letter).toEqual({
      id: expect.any(Number),
      event_id: poison.id,
      subject: 'relay.usage.recorded',
      consumer: 'billing-usage-test',
      pattern: 'relay.usage.recorded',
      payload: '{"quota":1134}',
      error: 'ledger table is locked',
      attempts: 2,
      published_at: Math.floor(Date.parse(poison.time) / 1000),
      failed_at: expect.any(Number),
      created_at: expect.any(Number),
    });
    // Channels' consumer handled it; the dead letter is billing's alone.
    expect(seenByChannels).toEqual([1_134]);
    expect((await list('channels')).total).toBe(0);
    await waitFor(() => announced.length === 1, 5_000, 'the announcement');
    expect(announced[0]).toMatchObject({
      subject: 'billing.dead_letter.recorded',
      id: `dead-letter-billing-${letter!.id}`,
      data: { service: 'billing', dead_letter_id: letter!.id, event_id: poison.id, consumer: 'billing-usage-test', attempts: 2, waiting: 1 },
    });

    // Still broken: each replay fails and the row counts the new attempts.
    expect(await call('POST', `/api/dead_letter/billing/${letter!.id}/replay`)).toEqual({ success: false, message: 'replay failed: ledger table is locked' });
    // The handler's words are recorded as they are; what the route says around them is in the caller's language.
    expect(await call('POST', `/api/dead_letter/billing/${letter!.id}/replay`, 'zh-CN')).toEqual({
      success: false,
      message: '重放失败: ledger table is locked',
    });
    expect((await list('billing')).items[0]).toMatchObject({ id: letter!.id, attempts: 4, error: 'ledger table is locked' });

    fixed = true;
    expect(await call('POST', `/api/dead_letter/billing/${letter!.id}/replay`)).toEqual({ success: true, message: '' });
    expect(credited).toEqual([1_134]);
    expect(seenByChannels).toEqual([1_134]);
    expect((await list('billing')).total).toBe(0);
    expect(await call('POST', `/api/dead_letter/billing/${letter!.id}/replay`)).toMatchObject({ success: false, message: 'dead letter not found' });
    expect(await call('POST', `/api/dead_letter/billing/${letter!.id}/replay`, 'zh-CN')).toMatchObject({ success: false, message: '死信不存在' });
    // Nothing more arrives: the replay did not republish, and the dead letter was announced once.
    expect(announced).toHaveLength(1);
  });

  it('replays all, keeps those that fail again, pages, and deletes', async () => {
    // Down at first; once up, two of the four still fail.
    let up = false;
    const broken = new Set([2, 4]);
    const handled: number[] = [];
    await services.channels.bus.subscribe(
      'relay.channel.failed',
      async (event) => {
        const { n } = event.data as { n: number };
        if (!up || broken.has(n)) throw new Error(`channel ${n} is gone`);
        handled.push(n);
      },
      { durable: 'channels-health-test', maxDeliver: 1 },
    );
    for (const n of [1, 2, 3, 4]) await env.infra.bus.publish('relay.channel.failed', { n });
    await waitFor(async () => (await list('channels')).total === 4, 10_000, 'four dead letters');
    const second = await list('channels', '?p=2&page_size=3');
    expect(second).toMatchObject({ total: 4, page: 2, page_size: 3 });
    expect(second.items.map((item) => JSON.parse(item.payload!))).toEqual([{ n: 4 }]);

    up = true;
    expect(await call('POST', '/api/dead_letter/channels/replay_all')).toEqual({ success: true, message: '', data: { replayed: 2, failed: 2 } });
    expect(handled).toEqual([1, 3]);
    const left = (await list('channels')).items;
    expect(left.map((item) => [JSON.parse(item.payload!), item.attempts])).toEqual([
      [{ n: 2 }, 2],
      [{ n: 4 }, 2],
    ]);

    expect(await call('DELETE', `/api/dead_letter/channels/${left[0]!.id}`)).toEqual({ success: true, message: '' });
    expect((await app.inject({ method: 'DELETE', url: `/api/dead_letter/channels/${left[0]!.id}` })).statusCode).toBe(404);
    expect((await list('channels')).items.map((item) => item.id)).toEqual([left[1]!.id]);
  });
});
