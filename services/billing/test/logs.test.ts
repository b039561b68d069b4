import type { DataSource } from 'typeorm';
import { JobName } from '@aigw/contracts';
import { createJobs, createOptionsMirror, createSilentLogger, publishEvent, readJobRuns, type OptionsMirror } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import type { Session, TestGateway } from '../../gateway/test/support/gateway';
import type { BillingContext } from '../src/context';
import { LogEntity } from '../src/entities/index';
import { deleteLogsBefore, registerLogRetention, runLogRetention } from '../src/logs';
import { startWithTwoUsers } from './support/billing-db';

const DAY = 86_400;
const adminInfo = JSON.stringify({ admin_info: { use_channel: ['3', '7'] }, model_ratio: 2.5, frt: 120 });

describe.each(backends)('logs (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let alice: Session;
  let bob: Session;
  const now = Math.floor(Date.now() / 1000);
  /** Ids of the fixture rows by name. */
  const ids: Record<string, number> = {};

  const insert = async (name: string, row: Partial<LogEntity>) => {
    const result = await db.getRepository(LogEntity).insert({ content: name, ...row });
    ids[name] = result.identifiers[0]!.id as number;
  };
  const get = async (url: string, session: Session) => (await gateway.call('GET', url, { session })).json();
  const names = (items: Array<{ id: number }>) => items.map((item) => Object.keys(ids).find((name) => ids[name] === item.id) ?? `other:${item.id}`);

  beforeAll(async () => {
    ({ gateway, db, root, alice, bob } = await startWithTwoUsers(backend));

    const as = (session: Session, username: string) => ({ user_id: session.id, username });
    const consume = { type: 2, token_name: 'ta', model_name: 'gpt-4o', channel_id: 3, group: 'default', other: adminInfo };
    await insert('a1', { ...as(alice, 'alice'), ...consume, created_at: now - 10, quota: 100, prompt_tokens: 10, completion_tokens: 5 });
    await insert('a2', {
      ...as(alice, 'alice'),
      ...consume,
      created_at: now - 30,
      quota: 200,
      prompt_tokens: 20,
      completion_tokens: 10,
      model_name: 'gpt-4',
      token_name: 'tb',
      channel_id: 4,
      group: 'vip',
    });
    await insert('a3', { ...as(alice, 'alice'), ...consume, created_at: now - 3600, quota: 400, prompt_tokens: 40 });
    await insert('a4', { ...as(alice, 'alice'), type: 1, created_at: now - 20, quota: 5000 });
    await insert('a5', { ...as(alice, 'alice'), ...consume, created_at: now - 10 * DAY, quota: 800, prompt_tokens: 80, channel_id: 0 });
    await insert('b1', { ...as(bob, 'bob'), ...consume, created_at: now - 5, quota: 1000, prompt_tokens: 100, completion_tokens: 100 });
    await insert('b2', { ...as(bob, 'bob'), type: 3, created_at: now - 100, content: 'manage' });
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('filters the admin list by every field, exactly, newest first', async () => {
    const list = async (query: string) => (await get(`/api/log/?${query}`, root)).data;
    expect(names((await list('type=2')).items)).toEqual(['b1', 'a1', 'a2', 'a3', 'a5']);
    expect(names((await list('type=2&model_name=gpt-4')).items)).toEqual(['a2']);
    expect(names((await list('username=alice')).items)).toEqual(['a1', 'a4', 'a2', 'a3', 'a5']);
    expect(names((await list('token_name=ta')).items)).toEqual(['b1', 'a1', 'a3', 'a5']);
    expect(names((await list('channel=3')).items)).toEqual(['b1', 'a1', 'a3']);
    expect(names((await list('group=vip')).items)).toEqual(['a2']);
    expect(names((await list(`type=2&start_timestamp=${now - 60}&end_timestamp=${now - 8}`)).items)).toEqual(['a1', 'a2']);
    expect(names((await list('username=alic')).items)).toEqual([]);

    const page = await list('username=alice&page_size=2&p=2');
    expect(page).toMatchObject({ total: 5, page: 2, page_size: 2 });
    expect(names(page.items)).toEqual(['a2', 'a3']);
    expect((await list('username=alice&page_size=2&p=0')).items).toEqual((await list('username=alice&page_size=2&p=1')).items);

    const [row] = (await list('username=bob&type=2')).items;
    expect(row).toMatchObject({ id: ids.b1, user_id: bob.id, username: 'bob', channel: 3, quota: 1000, prompt_tokens: 100, other: adminInfo });
  });

  it('shows users only their own rows, without channel or admin_info, ignoring username and channel filters', async () => {
    const self = (await get('/api/log/self?username=bob&channel=4', alice)).data;
    expect(names(self.items)).toEqual(['a1', 'a4', 'a2', 'a3', 'a5']);
    expect(self.total).toBe(5);
    for (const item of self.items) {
      expect(item.user_id).toBe(alice.id);
      expect(item.channel).toBe(0);
      expect(JSON.stringify(item)).not.toMatch(/admin_info|use_channel/);
    }
    expect(JSON.parse(self.items[0].other)).toEqual({ model_ratio: 2.5, frt: 120 });
    expect(names((await get('/api/log/self?type=2&model_name=gpt-4o', alice)).data.items)).toEqual(['a1', 'a3', 'a5']);

    const bobs = (await get('/api/log/self?username=alice', bob)).data;
    expect(names(bobs.items)).toEqual(['b1', 'b2']);
  });

  it('sums consumption in the range and counts rpm/tpm over the last minute', async () => {
    const stat = async (url: string, session: Session) => (await get(url, session)).data;
    // The type filter does not matter: stat is about consumption (type 2).
    expect(await stat('/api/log/stat?type=1', root)).toEqual({ quota: 2500, rpm: 3, tpm: 245 });
    expect(await stat('/api/log/stat?username=alice', root)).toEqual({ quota: 1500, rpm: 2, tpm: 45 });
    // Time filters narrow the quota, not rpm/tpm.
    expect(await stat(`/api/log/stat?start_timestamp=${now - 7200}`, root)).toEqual({ quota: 1700, rpm: 3, tpm: 245 });
    expect(await stat(`/api/log/stat?model_name=gpt-4o&start_timestamp=${now - 7200}`, root)).toEqual({ quota: 1500, rpm: 2, tpm: 215 });
    expect(await stat('/api/log/stat?channel=4', root)).toEqual({ quota: 200, rpm: 1, tpm: 30 });
    expect(await stat('/api/log/stat?model_name=none', root)).toEqual({ quota: 0, rpm: 0, tpm: 0 });

    expect(await stat('/api/log/self/stat?username=bob&channel=4', alice)).toEqual({ quota: 1500, rpm: 2, tpm: 45 });
    expect(await stat('/api/log/self/stat', bob)).toEqual({ quota: 1000, rpm: 1, tpm: 200 });
  });

  it('refuses bad filters naming the field', async () => {
    expect((await get('/api/log/?type=9', root)).message).toMatch(/^type\b/);
    expect((await get('/api/log/self?start_timestamp=yesterday', alice)).message).toMatch(/^start_timestamp\b/);
    expect((await get('/api/log/?page_size=1000', root)).message).toMatch(/^page_size\b/);
    expect((await gateway.call('DELETE', '/api/log/', { session: root })).json().message).toMatch(/^target_timestamp\b/);
  });

  it('keeps users and guests out of the admin routes', async () => {
    for (const [method, url] of [
      ['GET', '/api/log/'],
      ['GET', '/api/log/stat'],
      ['DELETE', `/api/log/?target_timestamp=${now}`],
    ] as const) {
      expect([url, (await gateway.call(method, url, { session: alice })).statusCode]).toEqual([url, 403]);
      expect([url, (await gateway.call(method, url)).statusCode]).toEqual([url, 401]);
    }
    expect((await gateway.call('GET', '/api/log/self')).statusCode).toBe(401);
    expect(await db.getRepository(LogEntity).existsBy({ id: ids.b1 })).toBe(true);
  });

  it('deletes logs before a timestamp in batches and answers the count', async () => {
    const answer = (await gateway.call('DELETE', `/api/log/?target_timestamp=${now - 5 * DAY}`, { session: root })).json();
    expect(answer).toEqual({ success: true, message: '', data: 1 });
    expect(await db.getRepository(LogEntity).existsBy({ id: ids.a5 })).toBe(false);

    // 12 old rows in batches of 5: three statements (5, 5, 2), and the newer rows stay.
    const old = Array.from({ length: 12 }, (_, index) => ({ user_id: bob.id, type: 2, created_at: now - 20 * DAY + index }));
    await db.getRepository(LogEntity).insert(old);
    const before = await db.getRepository(LogEntity).count();
    expect(await deleteLogsBefore(db, now - 19 * DAY, 5)).toBe(12);
    expect(await db.getRepository(LogEntity).count()).toBe(before - 12);
    expect(await deleteLogsBefore(db, now - 19 * DAY, 5)).toBe(0);
  });

  describe('retention', () => {
    let mirror: OptionsMirror;
    beforeAll(async () => {
      mirror = await createOptionsMirror({ bus: gateway.env.infra.bus, logger: createSilentLogger() });
    });
    afterAll(() => mirror?.close());

    it('keeps everything at 0 days; deletes only rows older than LogRetentionDays, from the daily job', async () => {
      await insert('old', { user_id: bob.id, type: 2, created_at: now - 8 * DAY });
      await insert('recent', { user_id: bob.id, type: 2, created_at: now - 6 * DAY });
      const context = { db, options: mirror, kv: gateway.env.infra.kv, logger: createSilentLogger() } as unknown as BillingContext;
      expect(await runLogRetention(context)).toBe(0);
      expect(await db.getRepository(LogEntity).existsBy({ id: ids.old })).toBe(true);

      expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'LogRetentionDays', value: '7' } })).json().success).toBe(true);
      await waitFor(() => mirror.get('LogRetentionDays') === 7, 5_000, 'option mirrored');
      // The job runs once on registration, then daily.
      const jobs = await createJobs({ prefix: 'retention-test', logger: createSilentLogger() });
      try {
        await registerLogRetention({ ...context, jobs });
        await waitFor(async () => !(await db.getRepository(LogEntity).existsBy({ id: ids.old })), 5_000, 'old log deleted');
        // The run is recorded for root's job list.
        await waitFor(
          async () => (await readJobRuns(gateway.env.infra.kv, [JobName.BillingLogRetention])).get(JobName.BillingLogRetention)?.last_run?.outcome === 'ok',
          5_000,
          'run recorded',
        );
        expect((await readJobRuns(gateway.env.infra.kv, [JobName.BillingLogRetention])).get(JobName.BillingLogRetention)!.last_run!.summary).toMatch(
          /^deleted \d+ logs? older than 7 days$/,
        );
      } finally {
        await jobs.close();
      }
      expect(await db.getRepository(LogEntity).existsBy({ id: ids.recent })).toBe(true);
      expect(await db.getRepository(LogEntity).existsBy({ id: ids.a3 })).toBe(true);
    });
  });

  it("writes a usage-limit refusal as an error row, read in the reader's language", async () => {
    const refusal = {
      user_id: bob.id,
      token_id: 0,
      group: 'default',
      model: 'gpt-4o',
      retry_after_ms: 1000,
      time: now,
    };
    await publishEvent(gateway.env.infra.bus, 'relay.limit.exceeded', {
      ...refusal,
      scope: 'key',
      field: 'rpd',
      limit: 1,
      refused: 1,
      request_id: 'limit-one',
    });
    await publishEvent(gateway.env.infra.bus, 'relay.limit.exceeded', {
      ...refusal,
      scope: 'model',
      field: 'tpm',
      limit: 50,
      refused: 3,
      request_id: 'limit-three',
    });
    const errors = async (language: string) =>
      (await gateway.call('GET', '/api/log/self?type=5', { session: bob, headers: { 'accept-language': language } })).json().data.items as Array<{
        request_id: string;
        content: string;
      }>;
    await waitFor(async () => (await errors('en-US')).length === 2, 10_000, 'the error rows');
    const contents = async (language: string) => Object.fromEntries((await errors(language)).map((row) => [row.request_id, row.content]));
    expect(await contents('en-US')).toEqual({
      'limit-one': 'rate limit: API key rpd limit 1 reached; 1 request refused',
      'limit-three': 'rate limit: model tpm limit 50 reached; 3 requests refused',
    });
    expect(await contents('zh-CN')).toEqual({
      'limit-one': '速率限制：令牌的 rpd 限额 1 已达到，已拒绝 1 个请求',
      'limit-three': '速率限制：模型的 tpm 限额 50 已达到，已拒绝 3 个请求',
    });
    // Stored: the en-US text, and the message as data beside the error fields.
    const stored = await db.getRepository(LogEntity).findOneByOrFail({ request_id: 'limit-three' });
    expect(stored.content).toBe('rate limit: model tpm limit 50 reached; 3 requests refused');
    expect(JSON.parse(stored.other)).toMatchObject({
      error_code: 'rate_limit_exceeded',
      scope: 'model',
      message: { id: 'limits.refused_model', params: { field: 'tpm', limit: '50', refused: '3' } },
    });
  });
});
