import crypto from 'node:crypto';
import type { DataSource } from 'typeorm';
import { localizeMessage, MAX_QUOTA, topUpQuote, type TopUpQuoteInput } from '@aigw/contracts';
import type { BusEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { epaySign, epayVerify, moneyCents, newTradeNo, purchaseParams } from '../src/domain/epay';
import { AccountEntity, LedgerEntryEntity, LogEntity, TopUpEntity } from '../src/entities/index';
import { reconcile } from '../src/reconcile';
import { TOPUP_DISABLED_MESSAGE } from '../src/topups';
import { openBillingDatabase } from './support/billing-db';

/** What the tests' client (en-US unless a test asks otherwise) reads. */
const TOPUP_DISABLED = localizeMessage(TOPUP_DISABLED_MESSAGE, 'en-US');

type Params = Record<string, string>;

/** The epay signature written out again here, independently of src/domain/epay.ts. */
function md5Sign(params: Params, key: string): string {
  const text = Object.entries(params)
    .filter(([name, value]) => value !== '' && name !== 'sign' && name !== 'sign_type')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return crypto
    .createHash('md5')
    .update(text + key)
    .digest('hex');
}

describe('topUpQuote (exact money)', () => {
  const quote = (overrides: Partial<TopUpQuoteInput>) =>
    topUpQuote({ amount: 10, displayInCurrency: true, quotaPerUnit: 500_000, price: 7.3, groupRatio: 1, ...overrides });

  it.each([
    ['$10 at 7.3', {}, { quota: 5_000_000, money: '73.00', cents: 7300 }],
    [
      '$1 at 7.3 in group ratio 0.15: 1.095 rounds up (floating point says 1.09)',
      { amount: 1, groupRatio: 0.15 },
      { quota: 500_000, money: '1.10', cents: 110 },
    ],
    ['$3 at 7.3 × 1.5 = 32.85 (floating point: 32.849999…)', { amount: 3, groupRatio: 1.5 }, { quota: 1_500_000, money: '32.85', cents: 3285 }],
    ['quota units when currency display is off: 750000 = $1.5', { amount: 750_000, displayInCurrency: false }, { quota: 750_000, money: '10.95', cents: 1095 }],
    ['a free group', { groupRatio: 0 }, { quota: 5_000_000, money: '0.00', cents: 0 }],
  ])('%s', (_what, overrides, expected) => {
    expect(quote(overrides)).toEqual(expected);
  });

  it('refuses amounts out of range, naming them', () => {
    for (const amount of [0, -1, 1.5, Number.NaN, MAX_QUOTA + 1]) expect(() => quote({ amount })).toThrow(/^amount/);
    expect(() => quote({ amount: MAX_QUOTA })).toThrow(/^amount is too large/);
    expect(() => quote({ price: -1 })).toThrow(/^price/);
    expect(() => quote({ groupRatio: Infinity })).toThrow(/^groupRatio/);
  });
});

describe('the epay protocol', () => {
  const purchase = {
    pid: '1001',
    type: 'alipay',
    outTradeNo: 'USR1NOabcdef1732600000',
    notifyUrl: 'https://a.example/api/user/epay/notify',
    returnUrl: 'https://a.example/log',
    name: 'TUC1',
    money: '1.00',
  };

  it('signs the sorted, non-empty parameters with the key appended (MD5 computed by md5sum)', () => {
    const params = purchaseParams(purchase, 'secret-key');
    // printf 'money=1.00&name=TUC1&notify_url=…&out_trade_no=…&pid=1001&return_url=…&type=alipay%s' secret-key | md5sum
    expect(params.sign).toBe('a849515028053ee7162431871dae841f');
    expect(params.sign_type).toBe('MD5');
    expect(epaySign({ ...params, empty: '' }, 'secret-key')).toBe(params.sign);
  });

  it('verifies in constant time, and never with an empty key', () => {
    const params = { pid: '1001', out_trade_no: 'x', money: '1.00', trade_status: 'TRADE_SUCCESS' };
    const signed = { ...params, sign: md5Sign(params, 'k'), sign_type: 'MD5' };
    expect(epayVerify(signed, 'k')).toBe(true);
    expect(epayVerify({ ...signed, sign: signed.sign.toUpperCase() }, 'k')).toBe(true);
    expect(epayVerify(signed, 'other')).toBe(false);
    expect(epayVerify({ ...signed, money: '100.00' }, 'k')).toBe(false);
    expect(epayVerify({ ...signed, sign_type: 'RSA' }, 'k')).toBe(false);
    expect(epayVerify({ ...params, sign: 'short' }, 'k')).toBe(false);
    const unkeyed = { ...params, sign: md5Sign(params, '') };
    expect(epayVerify(unkeyed, '')).toBe(false);
  });

  it('numbers orders USR<uid>NO<6 random><unix>, and reads money exactly', () => {
    const numbers = new Set(Array.from({ length: 200 }, () => newTradeNo(42, 1_732_600_000)));
    expect(numbers.size).toBe(200);
    for (const tradeNo of numbers) expect(tradeNo).toMatch(/^USR42NO[A-Za-z0-9]{6}1732600000$/);
    expect(moneyCents('14.6')).toBe(1460n);
    expect(moneyCents('14.60')).toBe(1460n);
    expect(moneyCents('14')).toBe(1400n);
    for (const bad of ['14.601', '-1', '1e3', '', ' ', 'abc', undefined]) expect(moneyCents(bad)).toBeNull();
  });
});

describe.each(backends)('online top-up (%s)', (backend) => {
  const PAY_ADDRESS = 'https://pay.example.com';
  const EPAY_ID = '1001';
  const EPAY_KEY = 'epay-secret-key-0123456789';
  const SERVER = 'https://gw.example.com';
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let alice: Session;
  let bob: Session;
  const completed: BusEvent[] = [];

  const newUser = async (username: string): Promise<Session> => {
    expect((await gateway.register(username, `${username}-pass`)).json().success).toBe(true);
    const session = await gateway.login(username, `${username}-pass`);
    await waitFor(() => db.getRepository(AccountEntity).existsBy({ user_id: session.id }), 10_000, `account of ${username}`);
    return session;
  };
  const quotaOf = async (session: Session) => (await db.getRepository(AccountEntity).findOneByOrFail({ user_id: session.id })).quota;
  const amount = async (session: Session, body: unknown, language = 'en-US') =>
    (await gateway.call('POST', '/api/user/amount', { session, body, headers: { 'accept-language': language } })).json();
  const pay = async (session: Session, body: unknown) => (await gateway.call('POST', '/api/user/pay', { session, body })).json();
  const orderOf = (tradeNo: string) => db.getRepository(TopUpEntity).findOneByOrFail({ trade_no: tradeNo });
  const status = async () => (await gateway.call('GET', '/api/status')).json().data.enable_online_topup as boolean;

  /** Sets options as root, then waits until billing's copy has the non-secret ones. */
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) {
      expect({ key, answer: (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json() }).toEqual({
        key,
        answer: expect.objectContaining({ success: true }),
      });
    }
    await waitFor(
      async () => {
        const seen = (await gateway.call('GET', '/internal/billing/options', { session: root })).json().data as Record<string, unknown>;
        // URL options are stored without trailing slashes.
        const shown = (value: unknown) => (typeof value === 'string' ? value.replace(/\/+$/, '') : JSON.stringify(value));
        return Object.entries(values).every(([key, value]) => key === 'EpayKey' || shown(seen[key]) === shown(value));
      },
      10_000,
      'billing sees the options',
    );
  };
  /** Sets EpayKey and waits until billing (which fetches secrets by request) acts on it. */
  const setEpayKey = async (key: string) => {
    await setOptions({ EpayKey: key });
    await waitFor(async () => (await amount(alice, { amount: 10 })).success === Boolean(key), 10_000, 'billing sees EpayKey');
  };

  /** What an epay gateway sends back for an order, signed with `key`. */
  const gatewayNotify = (order: { trade_no: string; money: string }, overrides: Params = {}, key = EPAY_KEY): Params => {
    const params: Params = {
      pid: EPAY_ID,
      trade_no: `2024${order.trade_no.slice(-10)}`,
      out_trade_no: order.trade_no,
      type: 'alipay',
      name: 'TUC10',
      money: order.money,
      trade_status: 'TRADE_SUCCESS',
      ...overrides,
    };
    return { ...params, sign: md5Sign(params, key), sign_type: 'MD5' };
  };
  const notifyGet = async (params: Params) => {
    const response = await gateway.call('GET', `/api/user/epay/notify?${new URLSearchParams(params).toString()}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    return response.body;
  };
  const notifyPost = async (params: Params) => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/api/user/epay/notify',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });
    expect(response.statusCode).toBe(200);
    return response.body;
  };
  /** A new pending order of alice's for $10 (73.00). */
  const newOrder = async (session = alice, body: Record<string, unknown> = { amount: 10, payment_method: 'zfb' }) => {
    const answer = await pay(session, body);
    expect(answer.success).toBe(true);
    return orderOf(answer.data.out_trade_no as string);
  };

  beforeAll(async () => {
    gateway = await startGateway(backend);
    db = await openBillingDatabase(gateway.env);
    root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.env.infra.bus.subscribe('billing.topup.completed', async (event) => void completed.push(event), {});
    alice = await newUser('alice');
    bob = await newUser('bob');
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('is off until PayAddress, EpayId and EpayKey are all set', async () => {
    expect(await status()).toBe(false);
    expect(await amount(alice, { amount: 10 })).toEqual({ success: false, message: TOPUP_DISABLED });
    expect(await amount(alice, { amount: 10 }, 'zh-CN')).toEqual({ success: false, message: '管理员未开启在线充值！' });
    expect(await pay(alice, { amount: 10, payment_method: 'zfb' })).toEqual({ success: false, message: TOPUP_DISABLED });

    await setOptions({ PayAddress: `${PAY_ADDRESS}/`, EpayId: EPAY_ID, ServerAddress: SERVER });
    expect(await status()).toBe(false);
    expect(await amount(alice, { amount: 10 })).toEqual({ success: false, message: TOPUP_DISABLED });

    await setEpayKey(EPAY_KEY);
    expect(await status()).toBe(true);
    expect(await db.getRepository(TopUpEntity).count()).toBe(0);
  });

  it('quotes amount × Price × TopupGroupRatio of the user’s group, exactly, to 2 decimals', async () => {
    expect(await amount(alice, { amount: 10, top_up_code: '' })).toEqual({ success: true, message: 'success', data: '73.00' });
    await setOptions({ TopupGroupRatio: '{"default":1,"vip":0.15,"svip":1}' });
    await gateway.call('PUT', '/api/user/', { session: root, body: { id: bob.id, group: 'vip' } });
    await waitFor(async () => (await db.getRepository(AccountEntity).findOneByOrFail({ user_id: bob.id })).group === 'vip', 10_000, 'bob in vip');
    expect(await amount(bob, { amount: 1 })).toEqual({ success: true, message: 'success', data: '1.10' });
    expect(await amount(bob, { amount: 20 })).toEqual({ success: true, message: 'success', data: '21.90' });
    expect(await amount(alice, { amount: 1 })).toEqual({ success: true, message: 'success', data: '7.30' });
  });

  it('refuses amounts below MinTopUp, a price of 0.01 or less, and bad input, naming the field', async () => {
    await setOptions({ MinTopUp: '5' });
    expect(await amount(alice, { amount: 4 })).toEqual({ success: false, message: 'amount: the top-up amount cannot be less than 5' });
    expect(await amount(alice, { amount: 4 }, 'zh-CN')).toEqual({ success: false, message: 'amount: 充值数量不能小于 5' });
    expect(await pay(alice, { amount: 4, payment_method: 'wx' })).toEqual({ success: false, message: 'amount: the top-up amount cannot be less than 5' });
    expect((await amount(alice, { amount: 5 })).data).toBe('36.50');
    await setOptions({ MinTopUp: '1', Price: '0.01' });
    expect(await amount(alice, { amount: 1 })).toEqual({ success: false, message: 'amount: the amount payable must be more than 0.01' });
    expect(await amount(alice, { amount: 1 }, 'zh-CN')).toEqual({ success: false, message: 'amount: 实付金额必须大于 0.01' });
    expect((await amount(alice, { amount: 2 })).data).toBe('0.02');
    await setOptions({ Price: '7.3' });

    const cases: Array<[string, unknown, RegExp]> = [
      ['/api/user/amount', { amount: 'ten' }, /^amount\b/],
      ['/api/user/amount', { amount: 1.5 }, /^amount: must be a whole number$/],
      ['/api/user/amount', { amount: 0 }, /^amount: must be at least 1/],
      ['/api/user/amount', {}, /^amount\b/],
      ['/api/user/amount', { amount: MAX_QUOTA }, /^amount: is too large/],
      ['/api/user/pay', { amount: 10 }, /^payment_method: must be zfb \(Alipay\) or wx \(WeChat Pay\)/],
      ['/api/user/pay', { amount: 10, payment_method: 'paypal' }, /^payment_method: must be zfb/],
    ];
    for (const [url, body, message] of cases) {
      const answer = (await gateway.call('POST', url, { session: alice, body })).json();
      expect({ url, body, answer }).toEqual({ url, body, answer: { success: false, message: expect.stringMatching(message) } });
    }
    expect(await db.getRepository(TopUpEntity).count()).toBe(0);
  });

  it('takes the amount in quota units when currency display is off', async () => {
    await setOptions({ DisplayInCurrencyEnabled: 'false' });
    try {
      expect(await amount(alice, { amount: 1_000_000 })).toEqual({ success: true, message: 'success', data: '14.60' });
      expect(await amount(alice, { amount: 499_999 })).toEqual({ success: false, message: 'amount: the top-up amount cannot be less than 500000' });
      const order = await newOrder(alice, { amount: 750_000, payment_method: 'wx' });
      expect(order).toMatchObject({ amount: 750_000, money: '10.95', payment_method: 'wxpay', status: 'pending' });
    } finally {
      await setOptions({ DisplayInCurrencyEnabled: 'true' });
    }
  });

  it('builds a signed epay form and stores the pending order', async () => {
    await setOptions({ CustomCallbackAddress: 'https://callback.example.com/' });
    const answer = await pay(alice, { amount: 10, top_up_code: '', payment_method: 'zfb' });
    expect(answer).toMatchObject({ success: true, message: 'success', url: `${PAY_ADDRESS}/submit.php` });
    const form = answer.data as Params;
    expect(Object.keys(form).sort()).toEqual(['money', 'name', 'notify_url', 'out_trade_no', 'pid', 'return_url', 'sign', 'sign_type', 'type']);
    expect(form).toMatchObject({
      pid: EPAY_ID,
      type: 'alipay',
      money: '73.00',
      sign_type: 'MD5',
      notify_url: 'https://callback.example.com/api/user/epay/notify',
      return_url: `${SERVER}/log`,
    });
    expect(form.out_trade_no).toMatch(new RegExp(`^USR${alice.id}NO[A-Za-z0-9]{6}\\d{10}$`));
    expect(form.sign).toBe(md5Sign(form, EPAY_KEY));

    expect(await orderOf(form.out_trade_no!)).toMatchObject({
      user_id: alice.id,
      amount: 5_000_000,
      money: '73.00',
      payment_method: 'alipay',
      gateway: 'epay',
      status: 'pending',
      completed_at: 0,
      completed_by: 0,
      gateway_trade_no: '',
    });

    // Without a custom callback address the notify goes to ServerAddress.
    await setOptions({ CustomCallbackAddress: '' });
    const plain = (await pay(alice, { amount: 10, payment_method: 'wx' })).data as Params;
    expect(plain).toMatchObject({ type: 'wxpay', notify_url: `${SERVER}/api/user/epay/notify` });
    expect(plain.sign).toBe(md5Sign(plain, EPAY_KEY));
  });

  it('refuses forged, mismatched and unknown notifies without crediting anything', async () => {
    const order = await newOrder();
    const before = await quotaOf(alice);
    const refused: Array<[string, Params]> = [
      ['signed with another key', gatewayNotify(order, {}, 'not-the-key')],
      ['signed with an empty key', gatewayNotify(order, {}, '')],
      ['not signed', (({ sign: _sign, ...rest }) => rest)(gatewayNotify(order))],
      ['money changed after signing', { ...gatewayNotify(order), money: '0.01' }],
      ['signed, but less money than the order', gatewayNotify(order, { money: '7.30' })],
      ['signed, but another partner id', gatewayNotify(order, { pid: '9999' })],
      ['signed, but no such order', gatewayNotify({ trade_no: `USR${alice.id}NOnone001732600000`, money: '73.00' })],
    ];
    for (const [what, params] of refused) {
      expect({ what, get: await notifyGet(params), post: await notifyPost(params) }).toEqual({ what, get: 'fail', post: 'fail' });
    }
    // Signed and not a payment: acknowledged, nothing credited.
    expect(await notifyGet(gatewayNotify(order, { trade_status: 'WAIT_BUYER_PAY' }))).toBe('success');
    expect(await notifyGet({})).toBe('fail');

    expect(await quotaOf(alice)).toBe(before);
    expect(await orderOf(order.trade_no)).toMatchObject({ status: 'pending', completed_at: 0 });
    expect(await db.getRepository(LedgerEntryEntity).countBy({ request_id: `topup:${order.trade_no}` })).toBe(0);
  });

  it('credits a verified notify once: quota, ledger entry, type-1 log, order success, events', async () => {
    const order = await newOrder();
    const before = await quotaOf(alice);
    const params = gatewayNotify(order);
    expect(await notifyGet(params)).toBe('success');
    expect(await quotaOf(alice)).toBe(before + 5_000_000);
    const paid = await orderOf(order.trade_no);
    expect(paid).toMatchObject({ status: 'success', completed_by: 0, gateway_trade_no: params.trade_no });
    expect(paid.completed_at).toBeGreaterThan(0);
    expect(
      await db.getRepository(LogEntity).findBy({ user_id: alice.id, type: 1, content: 'online top-up succeeded, top-up amount: $10.00, paid: 73.00' }),
    ).toEqual([expect.objectContaining({ quota: 5_000_000, username: 'alice' })]);
    expect(await db.getRepository(LedgerEntryEntity).findBy({ request_id: `topup:${order.trade_no}` })).toEqual([
      expect.objectContaining({ user_id: alice.id, kind: 'topup', amount: 5_000_000 }),
    ]);
    await waitFor(() => completed.some((event) => (event.data as { trade_no: string }).trade_no === order.trade_no), 10_000, 'billing.topup.completed');
    expect(completed.find((event) => (event.data as { trade_no: string }).trade_no === order.trade_no)!.data).toEqual({
      trade_no: order.trade_no,
      user_id: alice.id,
      quota: 5_000_000,
      money: '73.00',
      gateway: 'epay',
      payment_method: 'alipay',
      completed_by: 0,
      completed_at: paid.completed_at,
    });
    // The console's balance (identity asks billing) shows it too.
    expect((await gateway.call('GET', '/api/user/self', { session: alice })).json().data.quota).toBe(before + 5_000_000);

    // A replay, by either method, is acknowledged and credits nothing.
    expect(await notifyGet(params)).toBe('success');
    expect(await notifyPost(params)).toBe('success');
    expect(await quotaOf(alice)).toBe(before + 5_000_000);

    // A form POST works as well as a GET; money may come without trailing zeros.
    const posted = await newOrder();
    expect(await notifyPost(gatewayNotify(posted, { money: '73' }))).toBe('success');
    expect(await quotaOf(alice)).toBe(before + 10_000_000);
  });

  it('credits a notify replayed 5 times at once exactly once (F2)', async () => {
    const order = await newOrder(bob, { amount: 20, payment_method: 'wx' }); // vip: 20 × 7.3 × 0.15
    expect(order.money).toBe('21.90');
    const before = await quotaOf(bob);
    const params = gatewayNotify(order);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, index) => (index % 2 ? notifyPost(params) : notifyGet(params))));
    expect(answers).toEqual(Array(5).fill('success'));
    expect(await quotaOf(bob)).toBe(before + 10_000_000);
    expect(await db.getRepository(LedgerEntryEntity).countBy({ request_id: `topup:${order.trade_no}` })).toBe(1);
    expect(await db.getRepository(LogEntity).countBy({ user_id: bob.id, type: 1 })).toBe(1);
    // Every replay was answered after its event was published: a later order's completion is announced after them all.
    const later = await newOrder(bob, { amount: 20, payment_method: 'wx' });
    expect(await notifyGet(gatewayNotify(later))).toBe('success');
    await waitFor(() => completed.some((event) => (event.data as { trade_no: string }).trade_no === later.trade_no), 10_000, 'the later completion');
    expect(completed.filter((event) => (event.data as { trade_no: string }).trade_no === order.trade_no)).toHaveLength(1);
  });

  it('refuses every notify while EpayKey is empty (R10)', async () => {
    const order = await newOrder();
    const before = await quotaOf(alice);
    await setEpayKey('');
    try {
      expect(await status()).toBe(false);
      expect(await notifyGet(gatewayNotify(order))).toBe('fail');
      expect(await notifyGet(gatewayNotify(order, {}, ''))).toBe('fail');
      expect(await quotaOf(alice)).toBe(before);
      expect((await orderOf(order.trade_no)).status).toBe('pending');
    } finally {
      await setEpayKey(EPAY_KEY);
    }
    // Once the key is back, the gateway's retry goes through.
    expect(await notifyGet(gatewayNotify(order))).toBe('success');
    expect(await quotaOf(alice)).toBe(before + 5_000_000);
  });

  it('lets an admin list orders and complete a paid one by hand, once; a late notify credits nothing more', async () => {
    const order = await newOrder();
    const before = await quotaOf(alice);
    const listed = (await gateway.call('GET', `/api/user/topup?p=1&page_size=5&keyword=${order.trade_no}`, { session: root })).json();
    expect(listed).toMatchObject({
      success: true,
      data: { total: 1, page: 1, page_size: 5, items: [{ trade_no: order.trade_no, status: 'pending', money: '73.00' }] },
    });
    const all = (await gateway.call('GET', '/api/user/topup?p=1&page_size=100', { session: root })).json().data;
    const ids = all.items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all.total).toBe(await db.getRepository(TopUpEntity).count());
    expect((await gateway.call('GET', '/api/user/topup?keyword=USR%25', { session: root })).json().data.total).toBe(0);

    const complete = (tradeNo: string) => gateway.call('POST', '/api/user/topup/complete', { session: root, body: { trade_no: tradeNo } });
    const done = (await complete(order.trade_no)).json();
    expect(done).toMatchObject({ success: true, data: { trade_no: order.trade_no, status: 'success', completed_by: root.id } });
    expect(await quotaOf(alice)).toBe(before + 5_000_000);
    expect(
      await db.getRepository(LogEntity).countBy({
        user_id: alice.id,
        type: 1,
        content: 'online top-up succeeded, top-up amount: $10.00, paid: 73.00 (completed by admin root)',
      }),
    ).toBe(1);
    // A balance credited on an admin's word is in the audit trail (issue 22.13).
    await waitFor(
      async () => (await gateway.call('GET', `/api/audit/?action=topup.completed&target_id=${order.trade_no}`, { session: root })).json().data.total === 1,
      10_000,
      'the audit record',
    );
    expect((await gateway.call('GET', `/api/audit/?target_id=${order.trade_no}`, { session: root })).json().data.items[0]).toMatchObject({
      service: 'billing',
      actor: { user_id: root.id, username: 'root' },
      target: { type: 'topup', id: order.trade_no },
      before: { status: 'pending' },
      after: { status: 'success', user_id: alice.id, quota: 5_000_000, money: '73.00' },
    });

    expect((await complete(order.trade_no)).json()).toEqual({
      success: false,
      message: 'trade_no: the order is success, only a pending order can be completed',
    });
    const unknown = await complete('USR1NOnothing1732600000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, message: 'top-up order not found' });
    const inChinese = await gateway.call('POST', '/api/user/topup/complete', {
      session: root,
      body: { trade_no: order.trade_no },
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(inChinese.json()).toEqual({ success: false, message: 'trade_no: 订单状态为 success，只有待支付的订单可以补单' });
    expect((await complete('')).json().message).toMatch(/^trade_no\b/);
    expect(await notifyGet(gatewayNotify(order))).toBe('success');
    expect(await quotaOf(alice)).toBe(before + 5_000_000);
    expect(await db.getRepository(LedgerEntryEntity).countBy({ request_id: `topup:${order.trade_no}` })).toBe(1);

    // A notify and a manual completion racing: one credit.
    const raced = await newOrder();
    const [notified, manual] = await Promise.all([notifyGet(gatewayNotify(raced)), complete(raced.trade_no)]);
    expect(notified).toBe('success');
    // The admin either won, or found it paid already.
    expect(manual.json()).toEqual(
      expect.objectContaining(
        manual.json().success
          ? { data: expect.objectContaining({ completed_by: root.id }) }
          : { message: 'trade_no: the order is success, only a pending order can be completed' },
      ),
    );
    expect(await quotaOf(alice)).toBe(before + 10_000_000);
    expect(await db.getRepository(LedgerEntryEntity).countBy({ request_id: `topup:${raced.trade_no}` })).toBe(1);
  });

  it('keeps every balance equal to its ledger (reconcile)', async () => {
    expect(await reconcile(db)).toEqual([]);
  });
});
