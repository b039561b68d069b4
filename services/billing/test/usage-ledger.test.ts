import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { defaultOptionValues, MAX_QUOTA, type UsageRecord } from '@aigw/contracts';
import { counterKeys, createQuotaGate, createSilentLogger, publishEvent, requestTyped, type OptionsMirror } from '@aigw/platform';
import { backends, seededRandom, testServices, waitFor } from '@aigw/platform/testing';
import { connect } from 'nats';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { AccountEntity, LedgerEntryEntity, LogEntity, PendingRequestEntity, QuotaDataEntity, TokenEntity } from '../src/entities/index';
import { reconcile } from '../src/reconcile';
import { applyUsage, createUsageBatcher, USAGE_BATCH_WINDOW_MS, type BalanceDrop, type UsageOutcome } from '../src/usage-consumer';
import { openBillingDatabase } from './support/billing-db';

/** A small seeded PRNG (mulberry32), so a failing randomised run can be replayed. */
function prng(seed: number) {
  const next = seededRandom(seed);
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

interface TestUser {
  session: Session;
  username: string;
  limitedToken: number;
  unlimitedToken: number;
}

describe.each(backends)('usage ledger (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  const database = backend === 'real' ? 'PostgreSQL' : 'SQLite';

  const newUser = async (username: string, quota: number): Promise<TestUser> => {
    expect((await gateway.register(username, `${username}-pass`)).json().success).toBe(true);
    const session = await gateway.login(username, `${username}-pass`);
    await waitFor(() => db.getRepository(AccountEntity).existsBy({ user_id: session.id }), 10_000, `account of ${username}`);
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: session.id, quota } })).json().success).toBe(true);
    const token = async (body: Record<string, unknown>) => (await gateway.call('POST', '/api/token/', { session, body })).json().data[0].id as number;
    return {
      session,
      username,
      limitedToken: await token({ name: 'limited', remain_quota: 5_000_000 }),
      unlimitedToken: await token({ name: 'unlimited', unlimited_quota: true }),
    };
  };

  const record = (user: TestUser, overrides: Partial<UsageRecord> = {}): UsageRecord => ({
    request_id: randomUUID(),
    user_id: user.session.id,
    token_id: user.limitedToken,
    token_name: 'limited',
    model_name: 'gpt-4o',
    group: 'default',
    channel_id: 3,
    prompt_tokens: 1000,
    completion_tokens: 500,
    quota: 3750,
    use_time_ms: 2500,
    is_stream: true,
    created_at: Math.floor(Date.now() / 1000),
    content: '',
    other: { model_ratio: 1.25, completion_ratio: 4 },
    ...overrides,
  });
  const publish = (usage: UsageRecord, eventId?: string) => publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', usage, eventId);
  const applied = (requestId: string) => db.getRepository(LedgerEntryEntity).existsBy({ request_id: requestId });
  const self = async (user: TestUser) =>
    (await gateway.call('GET', '/api/user/self', { session: user.session })).json().data as { quota: number; used_quota: number; request_count: number };
  const tokenRow = (id: number) => db.getRepository(TokenEntity).findOneByOrFail({ id });
  const defaults = { get: (key: string) => (defaultOptionValues() as Record<string, unknown>)[key] } as unknown as OptionsMirror;

  /**
   * Every usage event published so far was handled (applied or skipped). In-process, events are
   * handled in order, one at a time; on NATS billing handles several at once, so ask JetStream
   * whether its consumer has nothing pending or unacknowledged.
   */
  const usageConsumerIdle = async (): Promise<boolean> => {
    if (backend !== 'real') return true;
    const nc = await connect({ servers: (await testServices()).natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      const stream = `${gateway.env.namespace}_relay`.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
      for await (const info of jsm.consumers.list(stream)) {
        if (info.name.startsWith('billing-usage_')) return info.num_pending === 0 && info.num_ack_pending === 0;
      }
      return false;
    } finally {
      await nc.close();
    }
  };

  beforeAll(async () => {
    gateway = await startGateway(backend);
    const { env } = gateway;
    // A second connection to billing's own tables, to check what the consumer wrote.
    db = await openBillingDatabase(env);
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('applies a usage event in full: log row, ledger row, balance, token and hourly data', async () => {
    const alice = await newUser('alice', 1_000_000);
    const usage = record(alice, { content: 'hello', other: { frt: 120 } });
    await publish(usage);
    await waitFor(() => applied(usage.request_id), 10_000, 'usage applied');

    expect(await self(alice)).toMatchObject({ quota: 1_000_000 - 3750, used_quota: 3750, request_count: 1 });
    const log = await db.getRepository(LogEntity).findOneByOrFail({ request_id: usage.request_id });
    expect(log).toMatchObject({
      user_id: alice.session.id,
      username: 'alice',
      type: 2,
      quota: 3750,
      prompt_tokens: 1000,
      completion_tokens: 500,
      use_time: 2,
      is_stream: true,
      channel_id: 3,
      group: 'default',
      token_id: alice.limitedToken,
      token_name: 'limited',
      model_name: 'gpt-4o',
      content: 'hello',
      created_at: usage.created_at,
    });
    expect(JSON.parse(log.other)).toEqual({ frt: 120 });
    expect(await db.getRepository(LedgerEntryEntity).findOneByOrFail({ request_id: usage.request_id })).toMatchObject({ kind: 'usage', amount: -3750 });
    expect(await tokenRow(alice.limitedToken)).toMatchObject({ remain_quota: 5_000_000 - 3750, used_quota: 3750 });
    const hour = Math.floor(usage.created_at / 3600) * 3600;
    expect(await db.getRepository(QuotaDataEntity).findOneByOrFail({ user_id: alice.session.id, model_name: 'gpt-4o', created_at: hour })).toMatchObject({
      count: 1,
      quota: 3750,
      token_used: 1500,
    });

    // An unlimited token only counts what it used; a playground request (token 0) touches no token.
    const unlimited = record(alice, { token_id: alice.unlimitedToken, quota: 100 });
    const playground = record(alice, { token_id: 0, quota: 50 });
    await publish(unlimited);
    await publish(playground);
    await waitFor(async () => (await applied(unlimited.request_id)) && applied(playground.request_id), 10_000, 'usage applied');
    expect(await tokenRow(alice.unlimitedToken)).toMatchObject({ remain_quota: 0, used_quota: 100 });
    expect(await self(alice)).toMatchObject({ quota: 1_000_000 - 3900, used_quota: 3900, request_count: 3 });
  });

  it('applies the same request once when it is delivered twice (same event id, and different event ids)', async () => {
    const bob = await newUser('bob', 1_000_000);
    const usage = record(bob, { quota: 1234 });
    await publish(usage, 'event-1'); // dropped by the bus dedupe when repeated with the same id
    await publish(usage, 'event-1');
    await publish(usage, `event-2-${usage.request_id}`); // a new event id: only billing's unique key can catch it
    await publish(usage);
    // Once the marker is applied and the consumer is idle, every copy was handled.
    const marker = record(bob, { quota: 1 });
    await publish(marker);
    await waitFor(() => applied(marker.request_id), 10_000, 'marker applied');
    await waitFor(usageConsumerIdle, 10_000, 'usage consumer idle');

    expect(await db.getRepository(LogEntity).countBy({ request_id: usage.request_id })).toBe(1);
    expect(await db.getRepository(LedgerEntryEntity).countBy({ request_id: usage.request_id })).toBe(1);
    expect(await self(bob)).toMatchObject({ quota: 1_000_000 - 1235, used_quota: 1235, request_count: 2 });
    expect(await tokenRow(bob.limitedToken)).toMatchObject({ remain_quota: 5_000_000 - 1235, used_quota: 1235 });
  });

  it('two concurrent applications of one request: one applies, the other finds it applied', async () => {
    const carol = await newUser('carol', 1_000_000);
    const options = defaults;
    const usage = record(carol, { quota: 777 });
    const apply = () => applyUsage({ db, options, counters: gateway.env.infra.counters }, usage);
    // PostgreSQL: three pooled connections really race (the later ledger inserts wait for the
    // first and skip its row); on SQLite the platform makes transactions take turns.
    const outcomes = await Promise.all([apply(), apply(), apply()]);
    expect(outcomes.sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await applyUsage({ db, options, counters: gateway.env.infra.counters }, usage)).toBe('duplicate');
    expect(await self(carol)).toMatchObject({ quota: 1_000_000 - 777, used_quota: 777, request_count: 1 });
  });

  /** A batcher as the consumer makes one, that records batches which fell back to one transaction per event. */
  const batcherOn = (database: DataSource, extra: { onBalanceDropped?: (drop: BalanceDrop) => Promise<void> } = {}) => {
    const failures: unknown[] = [];
    const batcher = createUsageBatcher({
      db: database,
      options: defaults,
      counters: gateway.env.infra.counters,
      onBatchFailed: (error) => failures.push(error),
      ...extra,
    });
    return { batcher, failures };
  };
  const ledgerRows = (requestId: string) => db.getRepository(LedgerEntryEntity).countBy({ request_id: requestId });
  const logRows = (requestId: string) => db.getRepository(LogEntity).countBy({ request_id: requestId });

  it('applies a request once when it comes twice in one batch, and again in a later batch', async () => {
    const ivan = await newUser('ivan', 1_000_000);
    const { batcher, failures } = batcherOn(db);
    const usage = record(ivan, { quota: 300 });
    const other = record(ivan, { quota: 20 });
    // Parked in the same tick: one batch. The same object twice, and a copy (a redelivery decoded anew).
    expect(await Promise.all([usage, { ...usage }, other, usage].map((entry) => batcher.recorded(entry)))).toEqual([
      'applied',
      'duplicate',
      'applied',
      'duplicate',
    ]);
    expect(await Promise.all([{ ...usage }, record(ivan, { quota: 1 })].map((entry) => batcher.recorded(entry)))).toEqual(['duplicate', 'applied']);
    // And alone (the fallback's and the pending sweep's path).
    expect(await applyUsage({ db, options: defaults, counters: gateway.env.infra.counters }, { ...usage })).toBe('duplicate');
    expect(failures).toEqual([]);

    expect([await ledgerRows(usage.request_id), await logRows(usage.request_id)]).toEqual([1, 1]);
    expect(await self(ivan)).toMatchObject({ quota: 1_000_000 - 321, used_quota: 321, request_count: 3 });
    expect(await tokenRow(ivan.limitedToken)).toMatchObject({ remain_quota: 5_000_000 - 321, used_quota: 321 });
  });

  it('keeps started requests as pending rows in the batch of records: not when the record is in the batch or was applied before', async () => {
    const jana = await newUser('jana', 1_000_000);
    const { batcher, failures } = batcherOn(db);
    const started = (usage: UsageRecord) => ({ record: usage, owner: 'relay-test', expires_at: Date.now() + 60_000 });
    const pendingRow = (requestId: string) => db.getRepository(PendingRequestEntity).existsBy({ request_id: requestId });
    const before = record(jana, { quota: 5 });
    expect(await batcher.recorded(before)).toBe('applied');
    const [finished, running, late] = [record(jana, { quota: 7 }), record(jana, { quota: 11 }), record(jana, { quota: 13 })];
    expect(await batcher.started(started(late))).toBe('pending');
    // Parked in the same tick: one batch, one transaction.
    expect(
      await Promise.all([
        batcher.started(started(finished)),
        batcher.recorded(finished),
        batcher.started(started(running)),
        batcher.started(started(before)),
        batcher.recorded(late),
      ]),
    ).toEqual(['duplicate', 'applied', 'pending', 'duplicate', 'applied']);
    expect(failures).toEqual([]);
    expect(await Promise.all([finished, running, before, late].map((usage) => pendingRow(usage.request_id)))).toEqual([false, true, false, false]);
    expect(await self(jana)).toMatchObject({ quota: 1_000_000 - 25, used_quota: 25, request_count: 3 });
    // Its record deletes the pending row, as the pending sweep's own would.
    expect(await applyUsage({ db, options: defaults, counters: gateway.env.infra.counters }, running)).toBe('applied');
    expect(await pendingRow(running.request_id)).toBe(false);
    expect(await self(jana)).toMatchObject({ quota: 1_000_000 - 36, used_quota: 36, request_count: 4 });
  });

  it('applies a mixed batch as one record at a time would: users, token kinds, free requests, a forged token, a new account, one drop', async () => {
    const judy = await newUser('judy', 5_000);
    const kim = await newUser('kim', 1_000_000);
    // Usage may outrun the registration of its user: the account is created, empty, and charged.
    const unknownUserId = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const stranger: TestUser = { ...kim, session: { ...kim.session, id: unknownUserId }, limitedToken: 0, unlimitedToken: 0 };
    const batch = [
      record(judy, { quota: 1_500 }), // 5,000 -> 3,500
      record(judy, { quota: 0 }), // free: counted, charged nothing
      record(kim, { quota: 700, token_id: kim.unlimitedToken, token_name: 'unlimited', model_name: 'claude-sonnet-4' }),
      record(judy, { quota: 2_000, token_id: judy.unlimitedToken, token_name: 'unlimited' }), // 3,500 -> 1,500
      record(kim, { quota: 0, token_id: 0, token_name: '' }), // playground, free
      record(judy, { quota: 1_000, token_id: 0, token_name: '' }), // 1,500 -> 500: crosses the threshold of 1,000
      record(kim, { quota: 300 }),
      record(kim, { quota: 40, token_id: judy.limitedToken }), // a token of another user: kim pays, judy's token is untouched
      record(judy, { quota: 200 }), // 500 -> 300: already below, no second report
      record(stranger, { quota: 90, token_id: 0, token_name: '' }),
    ];
    const drops: BalanceDrop[] = [];
    const { batcher, failures } = batcherOn(db, { onBalanceDropped: async (drop) => void drops.push(drop) });
    expect(await Promise.all(batch.map((usage) => batcher.recorded(usage)))).toEqual(batch.map(() => 'applied'));
    expect(failures).toEqual([]);
    expect(drops).toEqual([{ user_id: judy.session.id, quota: 500, threshold: 1000, request_id: batch[5]!.request_id }]);

    expect(await self(judy)).toMatchObject({ quota: 300, used_quota: 4_700, request_count: 5 });
    expect(await self(kim)).toMatchObject({ quota: 1_000_000 - 1_040, used_quota: 1_040, request_count: 4 });
    expect(await db.getRepository(AccountEntity).findOneByOrFail({ user_id: unknownUserId })).toMatchObject({
      username: '',
      quota: -90,
      used_quota: 90,
      request_count: 1,
    });
    expect(await tokenRow(judy.limitedToken)).toMatchObject({ remain_quota: 5_000_000 - 1_700, used_quota: 1_700 });
    expect(await tokenRow(judy.unlimitedToken)).toMatchObject({ remain_quota: 0, used_quota: 2_000 });
    expect(await tokenRow(kim.limitedToken)).toMatchObject({ remain_quota: 5_000_000 - 300, used_quota: 300 });
    expect(await tokenRow(kim.unlimitedToken)).toMatchObject({ remain_quota: 0, used_quota: 700 });
    // Every record has its ledger row (a free one stores 0, not -0) and its log row with its own figures.
    for (const usage of batch) {
      expect(await db.getRepository(LedgerEntryEntity).findOneByOrFail({ request_id: usage.request_id })).toMatchObject({
        user_id: usage.user_id,
        kind: 'usage',
        amount: 0 - usage.quota,
      });
      expect(await db.getRepository(LogEntity).findOneByOrFail({ request_id: usage.request_id })).toMatchObject({
        user_id: usage.user_id,
        username: usage.user_id === judy.session.id ? 'judy' : usage.user_id === kim.session.id ? 'kim' : '',
        quota: usage.quota,
        token_id: usage.token_id,
        model_name: usage.model_name,
        is_stream: true,
        use_time: 2,
      });
    }
    const hour = Math.floor(batch[0]!.created_at / 3600) * 3600;
    const hourly = async (userId: number, model: string) =>
      db.getRepository(QuotaDataEntity).findOneByOrFail({ user_id: userId, model_name: model, created_at: hour });
    expect(await hourly(judy.session.id, 'gpt-4o')).toMatchObject({ username: 'judy', count: 5, quota: 4_700, token_used: 7_500 });
    expect(await hourly(kim.session.id, 'gpt-4o')).toMatchObject({ username: 'kim', count: 3, quota: 340, token_used: 4_500 });
    expect(await hourly(kim.session.id, 'claude-sonnet-4')).toMatchObject({ count: 1, quota: 700 });

    // The whole batch again (a replica's redelivery): nothing changes, nothing is reported again.
    expect(await Promise.all(batch.map((usage) => batcher.recorded({ ...usage })))).toEqual(batch.map(() => 'duplicate'));
    expect(drops).toHaveLength(1);
    expect((await self(judy)).quota).toBe(300);
    expect(await reconcile(db)).toEqual([]);
  });

  it('keeps sums beyond 2^53 exact: ten charges of MAX_QUOTA and one of 1 in one batch', async () => {
    const leo = await newUser('leo', MAX_QUOTA);
    const batch = [...Array.from({ length: 10 }, () => record(leo, { quota: MAX_QUOTA, token_id: 0 })), record(leo, { quota: 1, token_id: 0 })];
    const { batcher, failures } = batcherOn(db);
    expect(await Promise.all(batch.map((usage) => batcher.recorded(usage)))).toEqual(batch.map(() => 'applied'));
    expect(failures).toEqual([]);
    // 10^15 - (10 x 10^15 + 1): summed as doubles the 1 would be lost (10^16 + 1 is not a double).
    // Read from the table: the console's balance schema stops at -MAX_QUOTA.
    expect((await db.getRepository(AccountEntity).findOneByOrFail({ user_id: leo.session.id })).quota).toBe(-9_000_000_000_000_001);
    expect(await reconcile(db)).toEqual([]);
  });

  it('two replicas racing on overlapping request ids apply each request once, without a failed batch', async () => {
    const random = prng(20260611);
    const racers = [] as TestUser[];
    for (const name of ['race-1', 'race-2', 'race-3', 'race-4']) racers.push(await newUser(name, 10_000_000));
    const records = Array.from({ length: 240 }, () => {
      const user = racers[random.int(0, racers.length - 1)]!;
      const kind = random.int(0, 2); // limited token, unlimited token, playground
      return record(user, { quota: random.next() < 0.1 ? 0 : random.int(1, 5_000), token_id: [user.limitedToken, user.unlimitedToken, 0][kind]! });
    });
    // PostgreSQL: a replica of its own, with its own connection pool, so the transactions really
    // overlap. SQLite has one writer per file, and one process per SQLite file: two batchers there.
    const otherDb = backend === 'real' ? await openBillingDatabase(gateway.env) : db;
    try {
      const replicas = [batcherOn(db), batcherOn(otherDb)];
      // Replica 1 gets records 0-179 in order, replica 2 records 60-239 shuffled (a redelivery
      // after a replica stalled, say): 120 requests come to both. 48 in flight each, as the bus gives them.
      const shuffled = records.slice(60).sort(() => random.next() - 0.5);
      const deliveries = [records.slice(0, 180), shuffled];
      const outcomes = await Promise.all(
        replicas.map(async ({ batcher }, index) => {
          const seen: Array<[string, UsageOutcome]> = [];
          const mine = deliveries[index]!;
          for (let offset = 0; offset < mine.length; offset += 48) {
            const slice = mine.slice(offset, offset + 48);
            const results = await Promise.all(slice.map((usage) => batcher.recorded({ ...usage })));
            seen.push(...slice.map((usage, position): [string, UsageOutcome] => [usage.request_id, results[position]!]));
          }
          return seen;
        }),
      );
      expect(replicas.flatMap(({ failures }) => failures)).toEqual([]);
      const appliedPerRequest = new Map<string, number>();
      for (const [requestId, outcome] of outcomes.flat())
        if (outcome === 'applied') appliedPerRequest.set(requestId, (appliedPerRequest.get(requestId) ?? 0) + 1);
      expect(appliedPerRequest.size).toBe(records.length);
      expect([...appliedPerRequest.values()].every((count) => count === 1)).toBe(true);
    } finally {
      if (otherDb !== db) await otherDb.destroy();
    }

    for (const usage of records) expect([await ledgerRows(usage.request_id), await logRows(usage.request_id)]).toEqual([1, 1]);
    for (const user of racers) {
      const mine = records.filter((usage) => usage.user_id === user.session.id);
      const sum = (list: UsageRecord[]) => list.reduce((total, usage) => total + usage.quota, 0);
      const spent = sum(mine);
      expect(await self(user)).toMatchObject({ quota: 10_000_000 - spent, used_quota: spent, request_count: mine.length });
      const limited = sum(mine.filter((usage) => usage.token_id === user.limitedToken));
      expect(await tokenRow(user.limitedToken)).toMatchObject({ remain_quota: 5_000_000 - limited, used_quota: limited });
      expect(await tokenRow(user.unlimitedToken)).toMatchObject({
        remain_quota: 0,
        used_quota: sum(mine.filter((usage) => usage.token_id === user.unlimitedToken)),
      });
    }
    expect(await reconcile(db)).toEqual([]);
  });

  it('reports the one request that took the balance below QuotaRemindThreshold, after its commit, once', async () => {
    const drops: Array<{ id: string; data: unknown; committed: boolean }> = [];
    await gateway.env.infra.bus.subscribe(
      'billing.balance.dropped',
      async (event) => {
        const { request_id } = event.data as { request_id: string };
        drops.push({ id: event.id, data: event.data, committed: await applied(request_id) });
      },
      {},
    );
    const heidi = await newUser('heidi', 10_000);
    // Five charges of 2,000 at once (batched together where the bus allows): only the step from
    // 2,000 to 0 crosses the default threshold of 1,000.
    const charges = Array.from({ length: 5 }, () => record(heidi, { quota: 2_000 }));
    await Promise.all(charges.map((usage) => publish(usage)));
    await waitFor(async () => (await Promise.all(charges.map((usage) => applied(usage.request_id)))).every(Boolean), 10_000, 'charges applied');
    await waitFor(() => drops.length === 1, 10_000, 'drop reported');
    const crossing = (drops[0]!.data as { request_id: string }).request_id;
    expect(charges.map((usage) => usage.request_id)).toContain(crossing);
    expect(drops[0]).toEqual({
      id: `balance-dropped-${crossing}`,
      committed: true,
      data: { user_id: heidi.session.id, quota: 0, threshold: 1000, request_id: crossing },
    });

    // Already below: no second report; nor for the crossing request delivered again.
    const further = record(heidi, { quota: 100 });
    await publish(further);
    await publish(
      charges.find((usage) => usage.request_id === crossing)!,
      `again-${crossing}`,
    );
    const marker = record(heidi, { quota: 1 });
    await publish(marker);
    await waitFor(() => applied(marker.request_id), 10_000, 'marker applied');
    await waitFor(usageConsumerIdle, 10_000, 'usage consumer idle');
    // Every report was published before its usage was acknowledged; a sentinel published now
    // reaches this subscription after all of them (events of a subject keep their order).
    const sentinel = `sentinel-${randomUUID()}`;
    await publishEvent(gateway.env.infra.bus, 'billing.balance.dropped', { user_id: heidi.session.id, quota: -101, threshold: 1000, request_id: sentinel });
    await waitFor(() => drops.some((drop) => (drop.data as { request_id: string }).request_id === sentinel), 10_000, 'the sentinel');
    expect(drops.filter((drop) => (drop.data as { request_id: string }).request_id !== sentinel)).toHaveLength(1);
    expect((await self(heidi)).quota).toBe(-101);
  });

  it('applies a burst of 200 events in full, and measures the rate', async () => {
    const dave = await newUser('dave', 100_000_000);
    const burst = Array.from({ length: 200 }, (_, index) => record(dave, { quota: index + 1 }));
    const started = performance.now();
    await Promise.all(burst.map((usage) => publish(usage)));
    const ledger = db.getRepository(LedgerEntryEntity);
    await waitFor(async () => (await ledger.countBy({ user_id: dave.session.id, kind: 'usage' })) === 200, 30_000, 'burst applied');
    const viaBus = performance.now() - started;
    const total = (200 * 201) / 2;
    expect(await self(dave)).toMatchObject({ quota: 100_000_000 - total, used_quota: total, request_count: 200 });

    // The consumer's own cost, without the bus: one transaction per event, then parked in batches.
    const options = defaults;
    const timed = async (work: () => Promise<unknown>) => {
      const begun = performance.now();
      await work();
      return performance.now() - begun;
    };
    const single = Array.from({ length: 300 }, () => record(dave, { quota: 1 }));
    const singleMs = await timed(async () => {
      for (const usage of single) await applyUsage({ db, options, counters: gateway.env.infra.counters }, usage);
    });
    const batched = Array.from({ length: 300 }, () => record(dave, { quota: 1 }));
    const batcher = createUsageBatcher({ db, options, counters: gateway.env.infra.counters });
    // 16 in flight at a time, as the parallel deliveries give them.
    const batchedMs = await timed(async () => {
      for (let offset = 0; offset < batched.length; offset += 16) await Promise.all(batched.slice(offset, offset + 16).map((usage) => batcher.recorded(usage)));
    });
    const rate = (events: number, ms: number) => `${((events / ms) * 1000).toFixed(0)} events/s`;
    console.log(
      `usage ledger on ${database}: 200 events via the ${backend === 'real' ? 'NATS' : 'in-process'} bus applied in ${viaBus.toFixed(0)} ms ` +
        `(${rate(200, viaBus)}); without the bus: one transaction per event ${rate(300, singleMs)}, batches of 16 ${rate(300, batchedMs)}`,
    );
    expect(await self(dave)).toMatchObject({ quota: 100_000_000 - total - 600, request_count: 800 });
  });

  it('under a light load commits once per batch window, after a commit too, and applies every event', async () => {
    const lena = await newUser('lena', 1_000_000);
    /** When each transaction began. */
    const began: number[] = [];
    const counting = new Proxy(db, {
      get(target, key) {
        if (key === 'transaction') return (...args: Parameters<DataSource['transaction']>) => (began.push(Date.now()), target.transaction(...args));
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { batcher, failures } = batcherOn(counting);
    // A trickle, one event every 2 ms for 200 ms: never a backlog of USAGE_IN_FLIGHT.
    const outcomes: Array<Promise<UsageOutcome>> = [];
    const start = Date.now();
    while (Date.now() - start < 200) {
      outcomes.push(batcher.recorded(record(lena, { quota: 1 })));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(['applied']));
    expect(failures).toEqual([]);
    // A batch goes once its oldest event waited the window, and its oldest parked after the
    // previous batch was taken: never a commit straight after a commit with a few events each.
    for (let index = 1; index < began.length; index++) expect(began[index]! - began[index - 1]!).toBeGreaterThanOrEqual(USAGE_BATCH_WINDOW_MS - 2);
    expect(began.length).toBeLessThan(outcomes.length / 3);
    expect(await self(lena)).toMatchObject({ quota: 1_000_000 - outcomes.length, used_quota: outcomes.length, request_count: outcomes.length });
  });

  it('seeds the live counters from the database (SET NX), and the quota gate settles in step with the ledger', async () => {
    const erin = await newUser('erin', 50_000);
    const { bus, counters } = gateway.env.infra;
    expect(await requestTyped(bus, 'billing.quota.seed', { user_id: erin.session.id, token_id: erin.limitedToken })).toEqual({
      user: 50_000,
      token: 5_000_000,
    });
    // A live counter is never overwritten by a seed; an unlimited or foreign token has no counter.
    await counters.adjust(counterKeys.user(erin.session.id), -1000);
    expect(await requestTyped(bus, 'billing.quota.seed', { user_id: erin.session.id, token_id: erin.unlimitedToken })).toEqual({ user: 49_000, token: null });
    const frank = await newUser('frank', 10);
    expect((await requestTyped(bus, 'billing.quota.seed', { user_id: frank.session.id, token_id: erin.limitedToken })).token).toBeNull();
    await counters.delete(counterKeys.user(erin.session.id));

    // The relay's path: reserve (seeding on the miss), settle to the actual charge, publish usage.
    const gate = createQuotaGate({ ...gateway.env.infra, logger: createSilentLogger(), instanceName: `ledger-${gateway.env.namespace}` });
    const requestId = randomUUID();
    const held = await gate.reserve({ requestId, userId: erin.session.id, tokenId: erin.limitedToken, unlimitedToken: false, amount: 40_000, ttlMs: 30_000 });
    expect(held).toMatchObject({ ok: true, remaining: { user: 10_000, token: 4_960_000 } });
    expect(await gate.reserve({ requestId: randomUUID(), userId: erin.session.id, tokenId: 0, unlimitedToken: false, amount: 10_001, ttlMs: 30_000 })).toEqual({
      ok: false,
      reason: 'insufficient_user_quota',
    });
    if (!held.ok) throw new Error('not reserved');
    await gate.settle(held.hold, 3750);
    // Settled, not committed yet: the charge is still counted as held against the balance.
    expect(await counters.get(counterKeys.userHeld(erin.session.id))).toBe(3750);
    const usage = record(erin, { request_id: requestId, quota: 3750 });
    await publish(usage);
    await waitFor(() => applied(requestId), 10_000, 'usage applied');
    expect(await counters.get(counterKeys.user(erin.session.id))).toBe((await self(erin)).quota);
    // After the commit, billing takes the charge off what is held: spendable = balance - held.
    await waitFor(async () => (await counters.get(counterKeys.userHeld(erin.session.id))) === 0, 10_000, 'charge no longer held');
    expect(await counters.get(counterKeys.token(erin.limitedToken))).toBe((await tokenRow(erin.limitedToken)).remain_quota);
  });

  it('a randomised run of 1,000 mixed operations reconciles exactly', async () => {
    const random = prng(20241123);
    const users = [] as Array<TestUser & { quota: number; used: number; requests: number; remain: number; unlimitedUsed: number; usageIds: Set<string> }>;
    for (const name of ['r1', 'r2', 'r3', 'r4', 'r5']) {
      users.push({
        ...(await newUser(`mix-${name}`, 10_000_000)),
        quota: 10_000_000,
        used: 0,
        requests: 0,
        remain: 5_000_000,
        unlimitedUsed: 0,
        usageIds: new Set(),
      });
    }
    // Redemption codes in four denominations, handed out as the run draws top-ups.
    const codes: Array<{ key: string; quota: number }> = [];
    for (const quota of [100_000, 250_000, 500_000, 1_000_000]) {
      const created = (await gateway.call('POST', '/api/redemption/', { session: root, body: { name: `mix-${quota}`, quota, count: 60 } })).json();
      expect(created.success).toBe(true);
      codes.push(...(created.data as string[]).map((key) => ({ key, quota })));
    }
    const usageRows = (user: TestUser) => db.getRepository(LedgerEntryEntity).countBy({ user_id: user.session.id, kind: 'usage' });
    const counts = { usage: 0, duplicate: 0, topup: 0, admin: 0 };

    const started = performance.now();
    for (let step = 0; step < 1000; step++) {
      const user = users[random.int(0, users.length - 1)]!;
      const draw = random.next();
      if (draw < 0.7) {
        const kind = random.int(0, 2); // limited token, unlimited token, playground
        const quota = random.int(0, 20_000);
        const usage = record(user, { quota, token_id: [user.limitedToken, user.unlimitedToken, 0][kind]!, prompt_tokens: random.int(0, 5000) });
        await publish(usage);
        user.quota -= quota;
        user.used += quota;
        user.requests += 1;
        if (kind === 0) user.remain -= quota;
        if (kind === 1) user.unlimitedUsed += quota;
        user.usageIds.add(usage.request_id);
        counts.usage += 1;
        if (random.next() < 0.1) {
          await publish(usage); // redelivered under a new event id: must not count
          counts.duplicate += 1;
        }
      } else if (draw < 0.9 && codes.length > 0) {
        const code = codes.splice(random.int(0, codes.length - 1), 1)[0]!;
        const redeemed = (await gateway.call('POST', '/api/user/topup', { session: user.session, body: { key: code.key } })).json();
        expect(redeemed).toMatchObject({ success: true, data: code.quota });
        user.quota += code.quota;
        counts.topup += 1;
      } else {
        // The editor sets an absolute balance: wait for this user's usage in flight, so the test knows what it replaces.
        await waitFor(async () => (await usageRows(user)) === user.usageIds.size, 20_000, 'usage drained before an admin edit');
        const quota = user.quota + random.int(-2_000_000, 2_000_000);
        expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: user.session.id, quota } })).json().success).toBe(true);
        user.quota = quota;
        counts.admin += 1;
      }
    }
    for (const user of users) await waitFor(async () => (await usageRows(user)) === user.usageIds.size, 30_000, 'usage drained');
    const elapsed = performance.now() - started;

    expect(await reconcile(db)).toEqual([]);
    for (const user of users) {
      expect(await self(user)).toMatchObject({ quota: user.quota, used_quota: user.used, request_count: user.requests });
      expect(await tokenRow(user.limitedToken)).toMatchObject({ remain_quota: user.remain, used_quota: 5_000_000 - user.remain });
      expect(await tokenRow(user.unlimitedToken)).toMatchObject({ used_quota: user.unlimitedUsed });
      expect(await db.getRepository(LogEntity).countBy({ user_id: user.session.id, type: 2 })).toBe(user.usageIds.size);
    }
    console.log(`usage ledger on ${database}: randomised run ${JSON.stringify(counts)} in ${elapsed.toFixed(0)} ms`);
  });

  it('reconcile reports an account whose balance no longer matches its ledger', async () => {
    const grace = await newUser('grace', 1000);
    // A hand edit behind the ledger's back (the kind of drift the nightly check exists to catch).
    await db.getRepository(AccountEntity).update({ user_id: grace.session.id }, { quota: 1500, used_quota: 7 });
    const mismatches = await reconcile(db);
    expect(mismatches).toEqual([
      {
        user_id: grace.session.id,
        quota: 1500,
        used_quota: 7,
        ledger_total: 1000,
        grants: 0,
        topups: 0,
        admin: 1000,
        transfers: 0,
        usage: 0,
        refunds: 0,
      },
    ]);
    await db.getRepository(AccountEntity).update({ user_id: grace.session.id }, { quota: 1000, used_quota: 0 });
    expect(await reconcile(db)).toEqual([]);
  });
});
