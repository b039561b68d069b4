import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { defaultOptionValues, type EventPayload, type TaskRefund, type UsageRecord } from '@aigw/contracts';
import { counterKeys, createSilentLogger, publishEvent, type OptionsMirror } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { AccountEntity, LedgerEntryEntity, LogEntity, TokenEntity } from '../src/entities/index';
import { reconcile } from '../src/reconcile';
import { applyTaskRefund, ChargeNotRecordedError } from '../src/task-refunds';
import { applyUsage } from '../src/usage-consumer';
import { openBillingDatabase } from './support/billing-db';

interface TestUser {
  id: number;
  limitedToken: number;
  unlimitedToken: number;
}

const START_QUOTA = 1_000_000;
const TOKEN_QUOTA = 5_000_000;
/** $0.10 at the default QuotaPerUnit of 500,000. */
const CHARGE = 50_000;

describe.each(backends)('task refunds (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let nextTask = 118;
  const defaults = { get: (key: string) => (defaultOptionValues() as Record<string, unknown>)[key] } as unknown as OptionsMirror;

  const newUser = async (username: string): Promise<TestUser> => {
    expect((await gateway.register(username, `${username}-pass`)).json().success).toBe(true);
    const session = await gateway.login(username, `${username}-pass`);
    await waitFor(() => db.getRepository(AccountEntity).existsBy({ user_id: session.id }), 10_000, `account of ${username}`);
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: session.id, quota: START_QUOTA } })).json().success).toBe(true);
    const token = async (body: Record<string, unknown>) => (await gateway.call('POST', '/api/token/', { session, body })).json().data[0].id as number;
    return {
      id: session.id,
      limitedToken: await token({ name: 'limited', remain_quota: TOKEN_QUOTA }),
      unlimitedToken: await token({ name: 'unlimited', unlimited_quota: true }),
    };
  };

  /** The submit's charge, as the relay records it. */
  /** A task submit's charge, applied as the usage consumer does; its request id. */
  const charge = async (user: TestUser, tokenId: number, quota = CHARGE): Promise<string> => {
    const usage: UsageRecord = {
      request_id: randomUUID(),
      user_id: user.id,
      token_id: tokenId,
      token_name: '',
      model_name: 'mj_imagine',
      group: 'default',
      channel_id: 3,
      prompt_tokens: 0,
      completion_tokens: 0,
      quota,
      use_time_ms: 1000,
      is_stream: false,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      other: {},
    };
    expect(await applyUsage({ db, options: defaults, counters: gateway.env.infra.counters }, usage)).toBe('applied');
    return usage.request_id;
  };

  const refundOf = (user: TestUser, tokenId: number, charges: string[], quota = CHARGE): TaskRefund => {
    const id = nextTask++;
    return {
      refund_id: `task-refund-${id}`,
      user_id: user.id,
      token_id: tokenId,
      quota,
      charges,
      task: { id, platform: 'midjourney', task_id: `17326000001234${id}`, action: 'IMAGINE' },
      reason: 'the upstream task did not finish within 60 minutes',
      created_at: Math.floor(Date.now() / 1000),
    };
  };

  const refund = (payload: TaskRefund) =>
    applyTaskRefund({ db, bus: gateway.env.infra.bus, counters: gateway.env.infra.counters, logger: createSilentLogger(), options: defaults }, payload);
  const account = (user: TestUser) => db.getRepository(AccountEntity).findOneByOrFail({ user_id: user.id });
  const tokenRow = (id: number) => db.getRepository(TokenEntity).findOneByOrFail({ id });
  const ledgerRows = (refundId: string) => db.getRepository(LedgerEntryEntity).countBy({ request_id: refundId });
  const logRows = (refundId: string) => db.getRepository(LogEntity).countBy({ request_id: refundId });

  beforeAll(async () => {
    gateway = await startGateway(backend);
    db = await openBillingDatabase(gateway.env);
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('gives a failed task its charge back: balance, used quota, token, one ledger row and one system log', async () => {
    const alice = await newUser('alice');
    const charged = await charge(alice, alice.limitedToken);
    expect(await account(alice)).toMatchObject({ quota: START_QUOTA - CHARGE, used_quota: CHARGE, request_count: 1 });
    expect(await tokenRow(alice.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA - CHARGE, used_quota: CHARGE });

    const payload = refundOf(alice, alice.limitedToken, [charged]);
    expect(await refund(payload)).toBe('applied');

    // The request still happened; its charge did not.
    expect(await account(alice)).toMatchObject({ quota: START_QUOTA, used_quota: 0, request_count: 1 });
    expect(await tokenRow(alice.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA, used_quota: 0 });
    expect(await db.getRepository(LedgerEntryEntity).findOneByOrFail({ request_id: payload.refund_id })).toMatchObject({
      user_id: alice.id,
      kind: 'refund',
      amount: CHARGE,
    });
    const logs = await db.getRepository(LogEntity).findBy({ user_id: alice.id, type: 4, request_id: payload.refund_id });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      username: 'alice',
      quota: CHARGE,
      token_id: alice.limitedToken,
      token_name: 'limited',
      created_at: payload.created_at,
      content: `task ${payload.task.task_id} (midjourney IMAGINE) failed: the upstream task did not finish within 60 minutes; refunded $0.10`,
    });
    expect(await reconcile(db)).toEqual([]);
  });

  it('applies a refund once, delivered twice or 20 times at once, and moves the live counters by it once', async () => {
    const bob = await newUser('bob');
    const { counters } = gateway.env.infra;
    const first = await charge(bob, bob.limitedToken, CHARGE);
    const second = await charge(bob, bob.limitedToken, 2 * CHARGE);
    // The relay's live counters, as loaded (billing only moves counters that exist).
    const userKey = counterKeys.user(bob.id);
    const tokenKey = counterKeys.token(bob.limitedToken);
    await counters.set(userKey, START_QUOTA - 3 * CHARGE);
    await counters.set(tokenKey, TOKEN_QUOTA - 3 * CHARGE);

    const twice = refundOf(bob, bob.limitedToken, [first], CHARGE);
    expect(await refund(twice)).toBe('applied');
    expect(await refund(twice)).toBe('duplicate');

    // PostgreSQL: pooled connections really race and the losers hit the unique key; on SQLite the
    // platform makes transactions take turns, so the later ones find the ledger row.
    const raced = refundOf(bob, bob.limitedToken, [second], 2 * CHARGE);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => refund(raced)));
    expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(19);
    expect(await refund(raced)).toBe('duplicate');

    for (const { refund_id } of [twice, raced]) {
      expect(await ledgerRows(refund_id)).toBe(1);
      expect(await logRows(refund_id)).toBe(1);
    }
    expect(await account(bob)).toMatchObject({ quota: START_QUOTA, used_quota: 0, request_count: 2 });
    expect(await tokenRow(bob.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA, used_quota: 0 });
    expect(await counters.get(userKey)).toBe(START_QUOTA);
    expect(await counters.get(tokenKey)).toBe(TOKEN_QUOTA);
    expect(await reconcile(db)).toEqual([]);
  });

  it("leaves an unlimited token's remaining quota alone, and creates no live counter", async () => {
    const carol = await newUser('carol');
    const { counters } = gateway.env.infra;
    const charged = await charge(carol, carol.unlimitedToken);
    const before = await tokenRow(carol.unlimitedToken);
    expect(before.used_quota).toBe(CHARGE);

    expect(await refund(refundOf(carol, carol.unlimitedToken, [charged]))).toBe('applied');
    expect(await tokenRow(carol.unlimitedToken)).toMatchObject({ remain_quota: before.remain_quota, used_quota: 0 });
    expect(await account(carol)).toMatchObject({ quota: START_QUOTA, used_quota: 0 });
    // Counters the relay never loaded stay unloaded: they seed from the refunded rows.
    expect(await counters.get(counterKeys.user(carol.id))).toBeNull();
    expect(await counters.get(counterKeys.token(carol.unlimitedToken))).toBeNull();
  });

  it('does not touch a token of another user named in the refund, nor its counter', async () => {
    const dave = await newUser('dave');
    const erin = await newUser('erin');
    const { counters } = gateway.env.infra;
    const charged = await charge(dave, 0);
    await counters.set(counterKeys.token(erin.limitedToken), TOKEN_QUOTA);

    const payload = refundOf(dave, erin.limitedToken, [charged]);
    expect(await refund(payload)).toBe('applied');
    expect(await tokenRow(erin.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA, used_quota: 0 });
    expect(await counters.get(counterKeys.token(erin.limitedToken))).toBe(TOKEN_QUOTA);
    expect(await account(erin)).toMatchObject({ quota: START_QUOTA, used_quota: 0 });
    // The charge still goes back to the user it was taken from.
    expect(await account(dave)).toMatchObject({ quota: START_QUOTA, used_quota: 0 });
    expect(await db.getRepository(LogEntity).findOneByOrFail({ request_id: payload.refund_id })).toMatchObject({ user_id: dave.id, token_name: '' });
    expect(await reconcile(db)).toEqual([]);
  });

  it("gives back what the ledger recorded for the charges, not the relay's figure: a charge that never happened refunds nothing", async () => {
    const gina = await newUser('gina');
    // A relay that died after storing the task but before charging it: the hold's record, nothing charged.
    const uncharged = await charge(gina, gina.limitedToken, 0);
    const payload = refundOf(gina, gina.limitedToken, [uncharged], CHARGE);
    expect(await refund(payload)).toBe('applied');
    expect(await account(gina)).toMatchObject({ quota: START_QUOTA, used_quota: 0 });
    expect(await tokenRow(gina.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA, used_quota: 0 });
    expect(await db.getRepository(LedgerEntryEntity).findOneByOrFail({ request_id: payload.refund_id })).toMatchObject({ kind: 'refund', amount: 0 });
    expect((await db.getRepository(LogEntity).findOneByOrFail({ request_id: payload.refund_id })).content).toContain('nothing was charged');
    expect(await refund(payload)).toBe('duplicate');
    expect(await reconcile(db)).toEqual([]);
  });

  it('waits for a charge not recorded yet (redelivered), then refunds a submit and a modal together', async () => {
    const hank = await newUser('hank');
    const submit = await charge(hank, hank.limitedToken, CHARGE);
    const modal = randomUUID();
    const payload = refundOf(hank, hank.limitedToken, [submit, modal], 2 * CHARGE);
    await expect(refund(payload)).rejects.toThrow(ChargeNotRecordedError);
    expect(await ledgerRows(payload.refund_id)).toBe(0);
    // The modal's usage record arrives: the redelivery applies both.
    const usage: UsageRecord = {
      request_id: modal,
      user_id: hank.id,
      token_id: hank.limitedToken,
      token_name: '',
      model_name: 'mj_modal',
      group: 'default',
      channel_id: 3,
      prompt_tokens: 0,
      completion_tokens: 0,
      quota: CHARGE,
      use_time_ms: 10,
      is_stream: false,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      other: {},
    };
    expect(await applyUsage({ db, options: defaults, counters: gateway.env.infra.counters }, usage)).toBe('applied');
    expect(await refund(payload)).toBe('applied');
    expect(await account(hank)).toMatchObject({ quota: START_QUOTA, used_quota: 0, request_count: 2 });
    expect(await tokenRow(hank.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA, used_quota: 0 });
    expect(await reconcile(db)).toEqual([]);
  });

  it('applies relay.task.refunded from the bus and announces the new balance', async () => {
    const frank = await newUser('frank');
    const charged = await charge(frank, frank.limitedToken);
    const updates: Array<EventPayload<'billing.account.updated'>> = [];
    await gateway.env.infra.bus.subscribe(
      'billing.account.updated',
      async (event) => {
        updates.push(event.data as EventPayload<'billing.account.updated'>);
      },
      {},
    );

    const payload = refundOf(frank, frank.limitedToken, [charged]);
    await publishEvent(gateway.env.infra.bus, 'relay.task.refunded', payload, payload.refund_id);
    await waitFor(async () => (await account(frank)).quota === START_QUOTA, 10_000, 'refund applied');
    expect(await account(frank)).toMatchObject({ used_quota: 0 });
    expect(await tokenRow(frank.limitedToken)).toMatchObject({ remain_quota: TOKEN_QUOTA, used_quota: 0 });
    expect(await logRows(payload.refund_id)).toBe(1);
    await waitFor(() => updates.some((update) => update.user_id === frank.id && update.quota === START_QUOTA), 10_000, 'billing.account.updated');
  });
});
