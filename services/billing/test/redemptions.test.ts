import type { DataSource } from 'typeorm';
import { localizeMessage } from '@aigw/contracts';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { AccountEntity, LedgerEntryEntity, LogEntity, RedemptionEntity } from '../src/entities/index';
import { INVALID_CODE_MESSAGE } from '../src/redemptions';
import { openBillingDatabase } from './support/billing-db';

/** What the tests' client (en-US unless a test asks otherwise) reads. */
const INVALID_CODE = localizeMessage(INVALID_CODE_MESSAGE, 'en-US');

describe.each(backends)('redemption codes (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let alice: Session;

  /** Registers and signs in a user, once billing has opened the account (so no grant races the test). */
  const newUser = async (username: string): Promise<Session> => {
    expect((await gateway.register(username, `${username}-pass`)).json().success).toBe(true);
    const session = await gateway.login(username, `${username}-pass`);
    await waitFor(() => db.getRepository(AccountEntity).existsBy({ user_id: session.id }), 10_000, `account of ${username}`);
    return session;
  };
  const quotaOf = async (session: Session) => (await gateway.call('GET', '/api/user/self', { session })).json().data.quota as number;
  const create = async (body: unknown) => (await gateway.call('POST', '/api/redemption/', { session: root, body })).json();
  const codeByKey = (key: string) => db.getRepository(RedemptionEntity).findOneByOrFail({ key });

  beforeAll(async () => {
    gateway = await startGateway(backend);
    const { env } = gateway;
    // A second connection to billing's own tables, to check what the routes wrote.
    db = await openBillingDatabase(env);
    root = await gateway.login('root', ROOT_PASSWORD);
    alice = await newUser('alice');
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('creates codes: 32 hex characters, unique, listed newest first', async () => {
    const created = await create({ name: 'batch', quota: 500_000, count: 5 });
    expect(created.success).toBe(true);
    const keys = created.data as string[];
    expect(keys).toHaveLength(5);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(5);

    const first = (await gateway.call('GET', '/api/redemption/?p=0&page_size=3', { session: root })).json().data;
    const alsoFirst = (await gateway.call('GET', '/api/redemption/?p=1&page_size=3', { session: root })).json().data;
    expect(first).toMatchObject({ total: 5, page: 1, page_size: 3 });
    expect(alsoFirst.items).toEqual(first.items);
    expect(first.items[0]).toMatchObject({ name: 'batch', quota: 500_000, status: 1, used_user_id: 0, user_id: root.id });
    const ids = first.items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const second = (await gateway.call('GET', '/api/redemption/?p=2&page_size=3', { session: root })).json().data;
    expect(second.items).toHaveLength(2);
    expect(Math.max(...second.items.map((item: { id: number }) => item.id))).toBeLessThan(Math.min(...ids));

    const one = (await gateway.call('GET', `/api/redemption/${ids[0]}`, { session: root })).json();
    expect(one).toMatchObject({ success: true, data: { id: ids[0], name: 'batch' } });
    expect((await gateway.call('GET', '/api/redemption/999999', { session: root })).statusCode).toBe(404);
  });

  it('searches by id or name prefix, treating % and _ literally', async () => {
    await create({ name: 'promo_summer', quota: 1, count: 2 });
    await create({ name: 'promoXsummer', quota: 1, count: 1 });
    const byName = (await gateway.call('GET', '/api/redemption/search?keyword=promo_', { session: root })).json().data;
    expect(byName.total).toBe(2);
    expect(byName.items.every((item: { name: string }) => item.name === 'promo_summer')).toBe(true);
    const id = byName.items[0].id as number;
    const byId = (await gateway.call('GET', `/api/redemption/search?keyword=${id}`, { session: root })).json().data;
    expect(byId.items.map((item: { id: number }) => item.id)).toContain(id);
    expect((await gateway.call('GET', '/api/redemption/search?keyword=nothing-like-it', { session: root })).json().data.total).toBe(0);
  });

  it('names a code after its quota when the name is blank', async () => {
    expect((await create({ name: '   ', quota: 250_000, count: 1 })).success).toBe(true);
    const newest = (await gateway.call('GET', '/api/redemption/?p=1&page_size=1', { session: root })).json().data.items[0];
    expect(newest).toMatchObject({ name: '$0.50', quota: 250_000 });
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const before = await db.getRepository(RedemptionEntity).count();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', quota: 1, count: 0 }, /^count must be above 0/],
      [{ name: 'x', quota: 1, count: 101 }, /^count must be at most 100/],
      [{ name: 'x', quota: -1, count: 1 }, /^quota: must not be negative/],
      [{ name: 'x', quota: 'NaN', count: 1 }, /^quota\b/],
      [{ name: 'x', quota: 2 ** 63, count: 1 }, /^quota: (is too large|must be a whole number)/],
      [{ name: 'x', quota: '100', count: 1 }, /^quota\b/],
      [{ name: 'x', quota: 1.5, count: 1 }, /^quota: must be a whole number$/],
      [{ name: 'a'.repeat(21), quota: 1, count: 1 }, /^name must be 1 to 20 characters/],
    ];
    for (const [body, message] of cases) {
      const answer = await create(body);
      expect({ body, answer }).toEqual({ body, answer: { success: false, message: expect.stringMatching(message) } });
    }
    // A JSON NaN cannot be sent; a raw body with NaN is not JSON and is refused before the route.
    const raw = await gateway.app.inject({
      method: 'POST',
      url: '/api/redemption/',
      payload: '{"name":"x","quota":NaN,"count":1}',
      headers: { 'content-type': 'application/json', cookie: `session=${root.cookie}`, 'new-api-user': String(root.id) },
    });
    expect(raw.json().success).toBe(false);
    expect(await db.getRepository(RedemptionEntity).count()).toBe(before);
  });

  it('redeems once: credits the quota, marks the code used, writes a type-1 log', async () => {
    const [key] = (await create({ name: 'single', quota: 1_000_000, count: 1 })).data as string[];
    const before = await quotaOf(alice);
    const answer = (await gateway.call('POST', '/api/user/topup', { session: alice, body: { key } })).json();
    expect(answer).toEqual({ success: true, message: '', data: 1_000_000 });
    expect(await quotaOf(alice)).toBe(before + 1_000_000);

    const code = await codeByKey(key!);
    expect(code).toMatchObject({ status: 3, used_user_id: alice.id });
    expect(code.redeemed_time).toBeGreaterThan(0);
    const log = await db.getRepository(LogEntity).findOneByOrFail({ user_id: alice.id, type: 1 });
    expect(log).toMatchObject({ quota: 1_000_000, username: 'alice', content: `top-up via redemption code: $2.00, code id ${code.id}` });
    // Kept as data, read in the reader's language (the console sends its own); the stored text stays en-US.
    expect(JSON.parse(log.other)).toEqual({ message: { id: 'topup.redemption', params: { quota: '$2.00', code_id: String(code.id) } } });
    const contentIn = async (language: string | undefined, session: Session, route: string) => {
      const listed = (await gateway.call('GET', `${route}?p=1&page_size=100&type=1`, { session, headers: { 'accept-language': language ?? '' } })).json();
      return (listed.data.items as Array<{ id: number; content: string }>).find((item) => item.id === log.id)?.content;
    };
    for (const route of ['/api/log/self', '/api/log/']) {
      const reader = route === '/api/log/' ? root : alice;
      expect(await contentIn('zh-CN', reader, route)).toBe(`通过兑换码充值 $2.00，兑换码 ID ${code.id}`);
      expect(await contentIn('en-US,en;q=0.9', reader, route)).toBe(`top-up via redemption code: $2.00, code id ${code.id}`);
      expect(await contentIn(undefined, reader, route)).toBe(`通过兑换码充值 $2.00，兑换码 ID ${code.id}`);
    }

    const again = (await gateway.call('POST', '/api/user/topup', { session: alice, body: { key } })).json();
    expect(again).toEqual({ success: false, message: INVALID_CODE });
    expect(await quotaOf(alice)).toBe(before + 1_000_000);
  });

  it('answers wrong, used and disabled codes with the same message', async () => {
    const [key] = (await create({ name: 'disabled', quota: 10, count: 1 })).data as string[];
    const code = await codeByKey(key!);
    expect((await gateway.call('PUT', '/api/redemption/?status_only=true', { session: root, body: { id: code.id, status: 2 } })).json().success).toBe(true);
    const disabled = (await gateway.call('POST', '/api/user/topup', { session: alice, body: { key } })).json();
    const wrong = (await gateway.call('POST', '/api/user/topup', { session: alice, body: { key: 'f'.repeat(32) } })).json();
    expect(disabled).toEqual({ success: false, message: INVALID_CODE });
    expect(wrong).toEqual(disabled);
    // A console with no language of its own reads Chinese.
    const noLanguage = await gateway.call('POST', '/api/user/topup', { session: alice, body: { key }, headers: { 'accept-language': '' } });
    expect(noLanguage.json()).toEqual({ success: false, message: '兑换码无效或已被使用' });
    const empty = (await gateway.call('POST', '/api/user/topup', { session: alice, body: { key: '  ' } })).json();
    expect(empty.message).toBe('key: please enter the redemption code');
    const emptyInChinese = await gateway.call('POST', '/api/user/topup', { session: alice, body: { key: '' }, headers: { 'accept-language': 'zh-CN' } });
    expect(emptyInChinese.json().message).toBe('key: 请输入兑换码');

    // Re-enabled, the same code works.
    expect((await gateway.call('PUT', '/api/redemption/?status_only=true', { session: root, body: { id: code.id, status: 1 } })).json().success).toBe(true);
    expect((await gateway.call('POST', '/api/user/topup', { session: alice, body: { key } })).json()).toMatchObject({ success: true, data: 10 });
  });

  it('edits name and quota while unused; refuses editing or re-enabling a used code', async () => {
    const [key] = (await create({ name: 'editable', quota: 100, count: 1 })).data as string[];
    const { id } = await codeByKey(key!);
    const edited = (await gateway.call('PUT', '/api/redemption/', { session: root, body: { id, name: 'renamed', quota: 300 } })).json();
    expect(edited).toMatchObject({ success: true, data: { id, name: 'renamed', quota: 300, status: 1 } });
    const tooLong = (await gateway.call('PUT', '/api/redemption/', { session: root, body: { id, name: 'b'.repeat(21) } })).json();
    expect(tooLong.message).toMatch(/^name /);
    const noStatus = (await gateway.call('PUT', '/api/redemption/?status_only=true', { session: root, body: { id } })).json();
    expect(noStatus).toEqual({ success: false, message: 'status: required with status_only' });
    const missing = (language: string) =>
      gateway.call('PUT', '/api/redemption/', { session: root, body: { id: 999_999, name: 'ghost' }, headers: { 'accept-language': language } });
    expect((await missing('zh-CN')).json()).toEqual({ success: false, message: '兑换码不存在' });
    expect((await missing('en-US')).json()).toEqual({ success: false, message: 'redemption code not found' });

    expect((await gateway.call('POST', '/api/user/topup', { session: alice, body: { key } })).json().data).toBe(300);
    const editUsed = (await gateway.call('PUT', '/api/redemption/', { session: root, body: { id, quota: 999_999 } })).json();
    expect(editUsed).toEqual({ success: false, message: 'a used redemption code cannot be edited' });
    for (const status of [1, 2]) {
      const toggle = (await gateway.call('PUT', '/api/redemption/?status_only=true', { session: root, body: { id, status } })).json();
      expect(toggle).toEqual({ success: false, message: 'the redemption code has been used and cannot be enabled or disabled' });
    }
    const editUsedInChinese = await gateway.call('PUT', '/api/redemption/', { session: root, body: { id, quota: 1 }, headers: { 'accept-language': 'zh-CN' } });
    expect(editUsedInChinese.json()).toEqual({ success: false, message: '已使用的兑换码不能编辑' });
    expect(await codeByKey(key!)).toMatchObject({ status: 3, quota: 300, name: 'renamed' });
    expect((await gateway.call('PUT', '/api/redemption/', { session: root, body: { id: 999_999, name: 'ghost' } })).statusCode).toBe(404);
  });

  it('deletes a code', async () => {
    const [key] = (await create({ name: 'doomed', quota: 1, count: 1 })).data as string[];
    const { id } = await codeByKey(key!);
    expect((await gateway.call('DELETE', `/api/redemption/${id}/`, { session: root })).json()).toEqual({ success: true, message: '' });
    expect(await db.getRepository(RedemptionEntity).existsBy({ id })).toBe(false);
    expect((await gateway.call('DELETE', `/api/redemption/${id}`, { session: root })).statusCode).toBe(404);
    expect((await gateway.call('POST', '/api/user/topup', { session: alice, body: { key } })).json().message).toBe(INVALID_CODE);
  });

  it('keeps users and guests out of the admin routes', async () => {
    const [key] = (await create({ name: 'guarded', quota: 1, count: 1 })).data as string[];
    const { id } = await codeByKey(key!);
    const routes: Array<['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?]> = [
      ['GET', '/api/redemption/'],
      ['GET', '/api/redemption/search?keyword=a'],
      ['GET', `/api/redemption/${id}`],
      ['POST', '/api/redemption/', { name: 'mine', quota: 1e12, count: 100 }],
      ['PUT', '/api/redemption/', { id, quota: 1e12 }],
      ['PUT', '/api/redemption/?status_only=true', { id, status: 2 }],
      ['DELETE', `/api/redemption/${id}`],
    ];
    for (const [method, url, body] of routes) {
      expect([method, url, (await gateway.call(method, url, { session: alice, body })).statusCode]).toEqual([method, url, 403]);
      expect([method, url, (await gateway.call(method, url, { body })).statusCode]).toEqual([method, url, 401]);
    }
    expect((await gateway.call('POST', '/api/user/topup', { body: { key } })).statusCode).toBe(401);
    expect(await codeByKey(key!)).toMatchObject({ status: 1, quota: 1 });
  });

  it('lets exactly one of 50 accounts redeeming one code at once win', async () => {
    const users = await Promise.all(Array.from({ length: 50 }, (_, index) => newUser(`race${index}`)));
    const [key] = (await create({ name: 'race', quota: 777_777, count: 1 })).data as string[];
    const before = await Promise.all(users.map(quotaOf));

    const answers = await Promise.all(users.map(async (session) => (await gateway.call('POST', '/api/user/topup', { session, body: { key } })).json()));
    const winners = answers.flatMap((answer, index) => (answer.success ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const answer of answers) if (!answer.success) expect(answer).toEqual({ success: false, message: INVALID_CODE });
    expect(answers[winners[0]!]).toEqual({ success: true, message: '', data: 777_777 });

    const winner = users[winners[0]!]!;
    const after = await Promise.all(users.map(quotaOf));
    after.forEach((quota, index) => expect(quota).toBe(before[index]! + (index === winners[0] ? 777_777 : 0)));
    const code = await codeByKey(key!);
    expect(code).toMatchObject({ status: 3, used_user_id: winner.id });
    expect(await db.getRepository(LogEntity).findBy({ type: 1, content: `top-up via redemption code: $1.56, code id ${code.id}` })).toEqual([
      expect.objectContaining({ user_id: winner.id, quota: 777_777 }),
    ]);
    expect(await db.getRepository(LedgerEntryEntity).findBy({ request_id: `redemption:${code.id}` })).toEqual([
      expect.objectContaining({ user_id: winner.id, kind: 'topup', amount: 777_777 }),
    ]);
  }, 120_000);
});
