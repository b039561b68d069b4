import type { DataSource } from 'typeorm';
import { backends } from '@aigw/platform/testing';
import type { Session, TestGateway } from '../../gateway/test/support/gateway';
import { QuotaDataEntity } from '../src/entities/index';
import { recordUsageHour, type UsageHour } from '../src/usage-data';
import { startWithTwoUsers } from './support/billing-db';

const HOUR = 3600;
const DAY = 24 * HOUR;

describe.each(backends)('usage data (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let alice: Session;
  let bob: Session;
  const now = Math.floor(Date.now() / 1000);
  /** A whole hour five hours back: every fixture row is at or after it. */
  const H = Math.floor(now / HOUR) * HOUR - 5 * HOUR;

  const record = (usage: Omit<UsageHour, 'username'> & { username?: string }) =>
    db.transaction((manager) => recordUsageHour(manager, { username: '', ...usage }));
  const get = async (url: string, session: Session, language = 'en-US') =>
    (await gateway.call('GET', url, { session, headers: { 'accept-language': language } })).json();

  beforeAll(async () => {
    ({ gateway, db, root, alice, bob } = await startWithTwoUsers(backend));

    const a = { userId: alice.id, username: 'alice' };
    await record({ ...a, modelName: 'gpt-4o', createdAt: H + 10, quota: 100, tokens: 10 });
    await record({ ...a, modelName: 'gpt-4o', createdAt: H + HOUR - 1, quota: 50, tokens: 5 });
    await record({ ...a, modelName: 'gpt-4o', createdAt: H + HOUR, quota: 7, tokens: 1 });
    await record({ ...a, modelName: 'gpt-4', createdAt: H + 20, quota: 30, tokens: 3 });
    await record({ ...a, modelName: 'gpt-4o', createdAt: now - 40 * DAY, quota: 9, tokens: 9 });
    await record({ userId: bob.id, username: 'bob', modelName: 'gpt-4o', createdAt: H + 100, quota: 1000, tokens: 100 });
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('adds requests to their hour, one row per user, model and hour', async () => {
    const rows = await db.getRepository(QuotaDataEntity).find({ where: { user_id: alice.id }, order: { created_at: 'ASC', model_name: 'ASC' } });
    const hour = (created: number) => Math.floor(created / HOUR) * HOUR;
    expect(
      rows.map(({ model_name, created_at, count, quota, token_used, username }) => ({ model_name, created_at, count, quota, token_used, username })),
    ).toEqual([
      { model_name: 'gpt-4o', created_at: hour(now - 40 * DAY), count: 1, quota: 9, token_used: 9, username: 'alice' },
      { model_name: 'gpt-4', created_at: H, count: 1, quota: 30, token_used: 3, username: 'alice' },
      { model_name: 'gpt-4o', created_at: H, count: 2, quota: 150, token_used: 15, username: 'alice' },
      { model_name: 'gpt-4o', created_at: H + HOUR, count: 1, quota: 7, token_used: 1, username: 'alice' },
    ]);
  });

  it('loses no increment when many writers hit the same hour at once', async () => {
    const userId = 1_000_000;
    // Each writer starts in its own macrotask, as separate requests or consumer deliveries do: on
    // PostgreSQL they overlap on separate pool connections; TypeORM's SQLite driver has one
    // connection and cannot start two transactions in the same tick.
    const nextTick = () => new Promise((resolve) => setImmediate(resolve));
    await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        nextTick().then(() => record({ userId, username: 'load', modelName: 'm', createdAt: H + index, quota: index + 1, tokens: 2 })),
      ),
    );
    const row = await db.getRepository(QuotaDataEntity).findOneByOrFail({ user_id: userId });
    expect(row).toMatchObject({ created_at: H, count: 25, quota: (25 * 26) / 2, token_used: 50 });
    await db.getRepository(QuotaDataEntity).delete({ user_id: userId });
  });

  it('sums every user per model and hour for admins, or one username', async () => {
    const range = `start_timestamp=${H}&end_timestamp=${H + 2 * HOUR}`;
    expect((await get(`/api/data/?${range}`, root)).data).toEqual([
      { model_name: 'gpt-4', created_at: H, count: 1, quota: 30, token_used: 3 },
      { model_name: 'gpt-4o', created_at: H, count: 3, quota: 1150, token_used: 115 },
      { model_name: 'gpt-4o', created_at: H + HOUR, count: 1, quota: 7, token_used: 1 },
    ]);
    expect((await get(`/api/data/?${range}&username=bob`, root)).data).toEqual([
      { model_name: 'gpt-4o', created_at: H, count: 1, quota: 1000, token_used: 100 },
    ]);
    // Admins may look further back than 30 days; the default range is the last 30 days.
    const longRange = (await get(`/api/data/?username=alice&start_timestamp=${now - 60 * DAY}`, root)).data;
    expect(longRange.map((row: { quota: number }) => row.quota)).toEqual([9, 30, 150, 7]);
    expect((await get('/api/data/?username=alice', root)).data.map((row: { quota: number }) => row.quota)).toEqual([30, 150, 7]);
  });

  it('shows users their own rows only, at most 30 days at once', async () => {
    const own = (await get(`/api/data/self?username=bob&start_timestamp=${H}&end_timestamp=${H + 2 * HOUR}`, alice)).data;
    expect(own).toEqual([
      { model_name: 'gpt-4', created_at: H, count: 1, quota: 30, token_used: 3 },
      { model_name: 'gpt-4o', created_at: H, count: 2, quota: 150, token_used: 15 },
      { model_name: 'gpt-4o', created_at: H + HOUR, count: 1, quota: 7, token_used: 1 },
    ]);
    expect((await get('/api/data/self', bob)).data).toEqual([{ model_name: 'gpt-4o', created_at: H, count: 1, quota: 1000, token_used: 100 }]);

    expect((await get(`/api/data/self?start_timestamp=${now - 30 * DAY}&end_timestamp=${now}`, alice)).success).toBe(true);
    const tooLong = await get(`/api/data/self?start_timestamp=${now - 30 * DAY - 1}&end_timestamp=${now}`, alice);
    expect(tooLong).toEqual({ success: false, message: 'end_timestamp: the time range must be at most 30 days' });
    const tooLongInChinese = await get(`/api/data/self?start_timestamp=${now - 30 * DAY - 1}&end_timestamp=${now}`, alice, 'zh-CN');
    expect(tooLongInChinese).toEqual({ success: false, message: 'end_timestamp: 时间范围最多为 30 天' });
    const reversed = await get(`/api/data/self?start_timestamp=${now}&end_timestamp=${now - 10}`, alice);
    expect(reversed).toEqual({ success: false, message: 'start_timestamp: must not be after end_timestamp' });
    expect((await get('/api/data/self?start_timestamp=soon', alice)).message).toMatch(/^start_timestamp\b/);
  });

  it('keeps users and guests out of the admin dashboard', async () => {
    expect((await gateway.call('GET', '/api/data/', { session: alice })).statusCode).toBe(403);
    expect((await gateway.call('GET', '/api/data/')).statusCode).toBe(401);
    expect((await gateway.call('GET', '/api/data/self')).statusCode).toBe(401);
  });
});
