import type { DataSource } from 'typeorm';
import { msg } from '@aigw/contracts';
import { randomUUID } from 'node:crypto';
import { counterKeys, createQuotaGate, createSilentLogger, type Bus } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { LedgerEntryEntity, LedgerKind } from '../src/entities/index';
import { reconcile } from '../src/reconcile';
import { openBillingDatabase } from './support/billing-db';

/** The balance of issue 18: an admin's routine profile save once set it to 0. */
const BALANCE = 49_955_643;

/**
 * Billing stops answering identity: its requests go to a subject nobody serves, so the bus
 * answers as it does when billing's process is gone. The returned function starts it again.
 */
function stopBilling(bus: Bus): () => void {
  const request = bus.request.bind(bus);
  bus.request = ((subject, data, options) =>
    request.call(bus, subject.startsWith('billing.') ? `stopped.${subject}` : subject, data, options)) as Bus['request'];
  return () => {
    bus.request = request;
  };
}

/** Issue 18: a balance that cannot be read is unknown, and an admin's quota change applies only to the balance the admin saw. */
describe.each(backends)('admin quota edits (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let admin: Session;
  let alice: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    db = await openBillingDatabase(gateway.env);
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['admin1', 'alice']) expect((await gateway.register(name, `${name}-password`)).json().success).toBe(true);
    admin = await gateway.login('admin1', 'admin1-password');
    alice = await gateway.login('alice', 'alice-password');
    expect((await gateway.call('POST', '/api/user/manage', { session: root, body: { id: admin.id, action: 'promote' } })).json().success).toBe(true);
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session: alice })).json().success === true, 10_000, 'alice account');
    // Scripts (and the relay tests' helper) fund users with an absolute quota and nothing else.
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: alice.id, quota: BALANCE } })).json()).toEqual({ success: true, message: '' });
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  /** GET /api/user/:id as an admin sees it in the editor. */
  const load = async (session: Session = root) => {
    const body = (await gateway.call('GET', `/api/user/${alice.id}`, { session })).json();
    expect(body.success).toBe(true);
    return body.data as { quota: number | null; display_name: string };
  };
  const put = async (session: Session, body: Record<string, unknown>, language = 'en-US') =>
    (await gateway.call('PUT', '/api/user/', { session, body: { id: alice.id, ...body }, headers: { 'accept-language': language } })).json<{
      success: boolean;
      message: string;
    }>();
  const balance = async () => (await load()).quota;
  const adminEntries = async () =>
    (await db.getRepository(LedgerEntryEntity).findBy({ user_id: alice.id, kind: LedgerKind.Admin })).map((entry) => Number(entry.amount));

  it('shows a balance it cannot read as unknown (null), never as zeros', async () => {
    expect(await balance()).toBe(BALANCE);
    const start = stopBilling(gateway.env.infra.bus);
    try {
      expect(await load()).toMatchObject({ quota: null, used_quota: null, request_count: null, aff_count: null, aff_quota: null, aff_history_quota: null });
      const rows = (await gateway.call('GET', '/api/user/?p=1&page_size=100', { session: root })).json().data.items as Array<Record<string, unknown>>;
      expect(rows.find((row) => row.id === alice.id)).toMatchObject({ username: 'alice', quota: null, used_quota: null, request_count: null });
    } finally {
      start();
    }
    expect(await balance()).toBe(BALANCE);
  });

  it('keeps the balance when the profile is saved after loading it while billing was away', async () => {
    const start = stopBilling(gateway.env.infra.bus);
    let loaded;
    try {
      loaded = await load();
    } finally {
      start();
    }
    // What the editor sends: the profile, and the quota only together with a balance it saw.
    const saved = await put(root, {
      username: 'alice',
      display_name: 'Alice B',
      group: 'default',
      ...(loaded.quota === null ? {} : { quota: loaded.quota, expected_quota: loaded.quota }),
    });
    expect(saved).toEqual({ success: true, message: '' });
    expect(await load()).toMatchObject({ quota: BALANCE, display_name: 'Alice B' });
    expect(await adminEntries()).toEqual([BALANCE]);
  });

  it('refuses a quota set against a balance that moved, naming the field and changing nothing', async () => {
    // An editor that (wrongly) saw 0 cannot turn it into a real 0.
    const refused = await put(root, { display_name: 'stale', quota: 0, expected_quota: 0 });
    expect(refused).toEqual({
      success: false,
      message: `quota: the balance changed since you loaded it (it is now ${BALANCE}, you loaded 0); reload the user and try again`,
    });
    // Billing's words, through identity, in the admin console's language.
    expect(await put(root, { display_name: 'stale', quota: 0, expected_quota: 0 }, 'zh-CN')).toEqual({
      success: false,
      message: `quota: 余额在加载后已变化（当前为 ${BALANCE}，加载时为 0），请重新加载该用户后再试`,
    });
    expect(await load()).toMatchObject({ quota: BALANCE, display_name: 'Alice B' });
    expect(await adminEntries()).toEqual([BALANCE]);
  });

  it('lets one of two admins editing at once win, and tells the other', async () => {
    const seenByRoot = (await load(root)).quota!;
    const seenByAdmin = (await load(admin)).quota!;
    const answers = await Promise.all([
      put(root, { quota: seenByRoot + 100, expected_quota: seenByRoot }),
      put(admin, { quota: seenByAdmin - 100, expected_quota: seenByAdmin }),
    ]);
    expect(answers.filter((answer) => answer.success)).toHaveLength(1);
    const loser = answers.find((answer) => !answer.success)!;
    expect(loser.message).toMatch(/^quota: the balance changed since you loaded it \(it is now \d+, you loaded \d+\); reload the user and try again$/);
    expect(await balance()).toBe(answers[0].success ? BALANCE + 100 : BALANCE - 100);
  });

  it("adds the add-quota dialog's delta to the balance as it is, concurrent deltas both applying", async () => {
    const before = (await balance())!;
    const answers = await Promise.all([put(root, { quota_delta: 1_000 }), put(admin, { quota_delta: -300 })]);
    expect(answers).toEqual([
      { success: true, message: '' },
      { success: true, message: '' },
    ]);
    expect(await balance()).toBe(before + 700);
    const logs = (await gateway.call('GET', '/api/log/self?p=1&page_size=100', { session: alice })).json().data.items as Array<{ type: number; quota: number }>;
    expect(logs.filter((row) => row.type === 3).map((row) => row.quota)).toEqual(expect.arrayContaining([1_000, -300]));
  });

  it('still sets an absolute quota without an expected value, and names the field of a bad combination', async () => {
    expect(await put(root, { quota: 5_000 })).toEqual({ success: true, message: '' });
    expect(await balance()).toBe(5_000);
    expect(await put(root, { quota: 1, quota_delta: 1 })).toMatchObject({ success: false, message: expect.stringMatching(/^quota_delta\b/) });
    expect(await put(root, { expected_quota: 5_000 })).toMatchObject({ success: false, message: expect.stringMatching(/^expected_quota\b/) });
    expect(await put(root, { quota_delta: 1.5 })).toMatchObject({ success: false, message: expect.stringMatching(/^quota_delta\b/) });
    expect(await put(root, { quota_delta: 2e15 })).toMatchObject({ success: false, message: expect.stringMatching(/^quota_delta\b/) });
    expect(await balance()).toBe(5_000);
  });

  it('re-bases the live counter on an absolute balance: the new balance less what is held, not a delta on a drifted counter', async () => {
    const { counters } = gateway.env.infra;
    const spendable = () => counters.get(counterKeys.user(alice.id));
    // A live request holds 1,000 (the reservation also loads the counter from the database).
    const gate = createQuotaGate({ ...gateway.env.infra, logger: createSilentLogger(), instanceName: `admin-quota-${gateway.env.namespace}` });
    const live = await gate.reserve({ requestId: randomUUID(), userId: alice.id, tokenId: 0, unlimitedToken: true, amount: 1_000, ttlMs: 60_000 });
    if (!live.ok) throw new Error(live.reason);
    const current = (await balance())!;
    expect(await spendable()).toBe(current - 1_000);
    // The counter drifted 5,170 below the real balance (as orphan holds of a crashed relay once left it).
    await counters.adjust(counterKeys.user(alice.id), -5_170);
    expect(await put(root, { quota: 3_000, expected_quota: current })).toMatchObject({ success: true });
    // 3,000 less the live hold; the drift is gone.
    expect(await spendable()).toBe(2_000);
    await gate.release(live.hold);
    expect(await spendable()).toBe(3_000);
    // The add-quota dialog's delta moves the counter by the delta.
    expect(await put(root, { quota_delta: 500 })).toMatchObject({ success: true });
    expect(await spendable()).toBe(3_500);
    expect(await balance()).toBe(3_500);
  });

  /** Issue 22.4: a set balance is never negative; money is taken away by the delta, down to 0 at most, and the ledger names who did it. */
  it('refuses a negative balance, naming the field, and changes nothing', async () => {
    const before = (await balance())!;
    const entries = await adminEntries();
    const refused = await put(root, { display_name: 'negative', quota: -99_999_999_999 });
    expect(refused).toMatchObject({ success: false, message: expect.stringMatching(/^quota: .*negative.*quota_delta/) });
    const refusedWithExpected = await put(root, { quota: -1, expected_quota: before });
    expect(refusedWithExpected).toMatchObject({ success: false, message: expect.stringMatching(/^quota\b/) });
    expect(await load()).toMatchObject({ quota: before });
    expect((await load()).display_name).not.toBe('negative');
    expect(await adminEntries()).toEqual(entries);
  });

  it("refuses billing's set_quota below 0 even when asked directly over the bus", async () => {
    const before = (await balance())!;
    // Straight on the bus, past the typed client's own check: billing refuses it itself.
    await expect(
      gateway.env.infra.bus.request('billing.account.set_quota', { user_id: alice.id, quota: -5, actor_id: root.id, actor_username: 'root' }),
    ).rejects.toThrow(msg('quota.set_negative'));
    expect(await balance()).toBe(before);
  });

  it('takes money away with a delta down to 0, never below, and records the admin in the ledger and the manage log', async () => {
    const before = (await balance())!;
    expect(before).toBeGreaterThan(0);
    const entries = await adminEntries();
    const refused = await put(admin, { quota_delta: -(before + 1) });
    expect(refused).toEqual({ success: false, message: `quota_delta: the balance cannot go below 0: it is ${before}, so at most ${before} can be taken away` });
    expect(await put(admin, { quota_delta: -(before + 1) }, 'zh-CN')).toEqual({
      success: false,
      message: `quota_delta: 余额不能低于 0：当前为 ${before}，最多只能扣除 ${before}`,
    });
    expect(await balance()).toBe(before);
    expect(await adminEntries()).toEqual(entries);

    expect(await put(admin, { quota_delta: -before })).toEqual({ success: true, message: '' });
    expect(await balance()).toBe(0);
    const last = await db.getRepository(LedgerEntryEntity).findOne({ where: { user_id: alice.id, kind: LedgerKind.Admin }, order: { id: 'DESC' } });
    expect(last).toMatchObject({ amount: -before, actor_id: admin.id });
    const logs = (
      await gateway.call('GET', `/api/log/?p=1&page_size=100&type=3&username=alice`, { session: root, headers: { 'accept-language': 'en-US' } })
    ).json().data.items as Array<{
      content: string;
      quota: number;
    }>;
    expect(logs.find((row) => row.quota === -before)?.content).toMatch(/^admin admin1 changed the quota from \$[\d.]+ to \$0\.00$/);
    // Back up again for the tests after this one.
    expect(await put(root, { quota_delta: before })).toEqual({ success: true, message: '' });
  });

  it('keeps every balance equal to its ledger (reconcile)', async () => {
    expect(await reconcile(db)).toEqual([]);
  });
});
