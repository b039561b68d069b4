import crypto from 'node:crypto';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { backends, waitFor } from '@aigw/platform/testing';
import type { BusEvent } from '@aigw/platform';
import { counterKeys } from '../src/ledger.js';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const bare = (key: string) => key.replace(/^sk-/, '');

describe.each(backends)('API tokens (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let alice: Session;
  let bob: Session;
  const updated: BusEvent[] = [];
  const deleted: BusEvent[] = [];

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['alice', 'bob']) expect((await gateway.register(name, `${name}-pass-1`)).json().success).toBe(true);
    alice = await gateway.login('alice', 'alice-pass-1');
    bob = await gateway.login('bob', 'bob-pass-1');
    const { bus } = gateway.env.infra;
    await bus.subscribe('billing.token.updated', async (event) => void updated.push(event), {});
    await bus.subscribe('billing.token.deleted', async (event) => void deleted.push(event), {});
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const post = async (session: Session, body: Record<string, unknown>) => (await gateway.call('POST', '/api/token/', { session, body })).json();
  const put = async (session: Session, body: Record<string, unknown>, statusOnly = false) =>
    (await gateway.call('PUT', `/api/token/${statusOnly ? '?status_only=true' : ''}`, { session, body })).json();
  const list = async (session: Session, query = 'p=0&size=100') => (await gateway.call('GET', `/api/token/?${query}`, { session })).json().data;
  const createOne = async (session: Session, body: Record<string, unknown> = {}) => {
    const answer = await post(session, { name: 'one', remain_quota: 500000, ...body });
    expect(answer).toMatchObject({ success: true });
    return answer.data[0] as { id: number; key: string; name: string; status: number };
  };

  /** The stored rows, read straight from billing's table. */
  const storedRows = async (): Promise<Array<Record<string, unknown>>> => {
    const { env } = gateway;
    const db = new DataSource(
      env.databaseUrl
        ? { type: 'postgres', url: env.databaseUrl, extra: { options: `-c search_path=${env.schema('billing')}` } }
        : { type: 'better-sqlite3', database: path.join(env.dataDir, 'app.db') },
    );
    await db.initialize();
    try {
      return await db.query('SELECT * FROM tokens');
    } finally {
      await db.destroy();
    }
  };

  it('creates a token and shows its full key once', async () => {
    const answer = await post(alice, { name: 'first', remain_quota: 500000 });
    expect(answer).toMatchObject({
      success: true,
      data: [{ name: 'first', status: 1, remain_quota: 500000, expired_time: -1, unlimited_quota: false, group: '', user_id: alice.id }],
    });
    const [token] = answer.data;
    expect(token.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    const view = (await gateway.call('GET', `/api/token/${token.id}`, { session: alice })).json();
    expect(view).toMatchObject({
      success: true,
      data: { id: token.id, name: 'first', key: `sk-${bare(token.key).slice(0, 4)}**********${token.key.slice(-4)}` },
    });
  });

  it('creates a batch: extras named <name>-xxxxxx, every key distinct, names still editable', async () => {
    const answer = await post(alice, { name: 'batch', count: 3, remain_quota: 1000 });
    expect(answer.data).toHaveLength(3);
    expect(answer.data.map((token: { name: string }) => token.name)).toEqual([
      'batch',
      expect.stringMatching(/^batch-[A-Za-z0-9]{6}$/),
      expect.stringMatching(/^batch-[A-Za-z0-9]{6}$/),
    ]);
    expect(new Set(answer.data.map((token: { key: string }) => token.key)).size).toBe(3);

    const long = 'n'.repeat(50);
    const extras = (await post(alice, { name: long, count: 2 })).data;
    expect(extras[0].name).toBe(long);
    expect(extras[1].name).toMatch(/^n{43}-[A-Za-z0-9]{6}$/);
    expect((await put(alice, { ...extras[1], remain_quota: 10 })).success).toBe(true);
  });

  it('never returns or stores a key in plaintext after creation', async () => {
    const created = (await post(alice, { name: 'secret', count: 2 })).data as Array<{ id: number; key: string }>;
    const responses = [
      (await gateway.call('GET', '/api/token/?p=0&size=100', { session: alice })).body,
      (await gateway.call('GET', `/api/token/${created[0]!.id}`, { session: alice })).body,
      (await gateway.call('GET', '/api/token/search?keyword=secret', { session: alice })).body,
      (await gateway.call('GET', `/api/token/search?token=${created[1]!.key}`, { session: alice })).body,
      (await gateway.call('PUT', '/api/token/', { session: alice, body: { id: created[0]!.id, name: 'secret-2' } })).body,
    ];
    const rows = await storedRows();
    for (const { id, key } of created) {
      for (const body of responses) expect(body).not.toContain(bare(key));
      const row = rows.find((candidate) => Number(candidate.id) === id)!;
      expect(JSON.stringify(row)).not.toContain(bare(key));
      expect(row).toMatchObject({ key_hash: sha256(bare(key)), key_prefix: bare(key).slice(0, 4) + key.slice(-4) });
    }
  });

  it('lists the owner’s tokens newest first, in pages (p 0 and 1 are the first)', async () => {
    const all = await list(alice);
    expect(all.total).toBeGreaterThanOrEqual(8);
    const ids = all.items.map((token: { id: number }) => token.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const token of all.items) expect(token.key).toMatch(/^sk-[A-Za-z0-9]{4}\*{10}[A-Za-z0-9]{4}$/);

    const first = await list(alice, 'p=0&size=2');
    expect(first).toEqual({ items: all.items.slice(0, 2), total: all.total, page: 1, page_size: 2 });
    expect(await list(alice, 'p=1&size=2')).toEqual(first);
    expect((await list(alice, 'p=2&page_size=2')).items).toEqual(all.items.slice(2, 4));
    expect((await list(alice, '')).page_size).toBe(10);
    expect((await gateway.call('GET', '/api/token/?size=101', { session: alice })).json()).toMatchObject({
      success: false,
      message: expect.stringMatching(/^size/),
    });
  });

  it('refuses bad input naming the field, and creates nothing', async () => {
    const before = (await list(alice)).total;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ remain_quota: -1 }, /^remain_quota: must not be negative/],
      [{ remain_quota: 'NaN' }, /^remain_quota\b/],
      [{ remain_quota: 2 ** 63 }, /^remain_quota\b/],
      [{ remain_quota: '500' }, /^remain_quota\b/],
      [{ remain_quota: 1.5 }, /^remain_quota: must be a whole number$/],
      [{ expired_time: -2 }, /^expired_time\b/],
      [{ expired_time: 'tomorrow' }, /^expired_time\b/],
      [{ expired_time: 1e13 }, /^expired_time\b/],
      [{ allow_ips: '1.2.3.4\nnot-an-ip' }, /^allow_ips: "not-an-ip" is not an IP address or CIDR range$/],
      [{ allow_ips: '10.0.0.0/33' }, /^allow_ips: "10.0.0.0\/33"/],
      [{ deny_ips: '10.0.0.0/8\nbad-host' }, /^deny_ips: "bad-host" is not an IP address or CIDR range$/],
      [{ deny_ips: '2001:db8::/129' }, /^deny_ips: "2001:db8::\/129" is not an IP address or CIDR range$/],
      [{ rate_limit_message: 'x'.repeat(256) }, /^rate_limit_message must be at most 255 characters$/],
      [{ rate_limit_message: 'two\nlines' }, /^rate_limit_message must be one line of text/],
      [{ rate_limit_message: 42 }, /^rate_limit_message /],
      [{ drawing_modes: ['relax', 'slow'] }, /^drawing_modes\.1: each mode must be fast, relax or turbo$/],
      [{ drawing_modes: 'relax' }, /^drawing_modes must be a list of modes/],
      [{ rate_limits: { rpm: -1 } }, /^rate_limits\.rpm: rpm must be a whole number/],
      [{ group: 'svip' }, /^group: "svip" is not a group you may use$/],
      [{ group: 'made-up' }, /^group\b/],
      [{ name: '' }, /^name is required/],
      [{ name: 'x'.repeat(51) }, /^name must be at most 50/],
      [{ count: 0 }, /^count must be a positive integer/],
      [{ count: 101 }, /^count must be at most 100/],
      [{ unlimited_quota: 'yes' }, /^unlimited_quota\b/],
    ];
    for (const [fields, message] of cases) {
      const answer = await post(alice, { name: 'bad', ...fields });
      expect({ fields, answer }).toEqual({ fields, answer: { success: false, message: expect.stringMatching(message) } });
    }
    // A bare NaN is not JSON at all: refused before any field is read.
    const raw = await gateway.call('POST', '/api/token/', {
      session: alice,
      body: '{"name":"bad","remain_quota":NaN}',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.statusCode).toBe(400);
    expect(raw.json().success).toBe(false);
    const badEdit = await put(alice, { id: (await list(alice)).items[0].id, remain_quota: -5 });
    expect(badEdit.message).toMatch(/^remain_quota\b/);
    expect((await list(alice)).total).toBe(before);
  });

  it('limits the token group to the owner’s own and the groups users may pick that have a ratio', async () => {
    const set = async (key: string, value: string) =>
      expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json().success).toBe(true);
    await set('UserUsableGroups', '{"default":"default group","vip":"vip group","ghost":"no ratio"}');
    await waitFor(
      async () => 'ghost' in (await gateway.call('GET', '/internal/billing/options', { session: root })).json().data.UserUsableGroups,
      5_000,
      'options mirrored',
    );
    expect((await createOne(alice, { group: 'vip' })).status).toBe(1);
    expect((await createOne(alice, { group: 'default' })).status).toBe(1);
    expect((await post(alice, { name: 'ghost', group: 'ghost' })).message).toBe('group: "ghost" is not a group you may use');
    const token = await createOne(alice);
    expect((await put(alice, { id: token.id, group: 'ghost' })).message).toMatch(/^group\b/);
    expect((await put(alice, { id: token.id, group: 'vip' })).data.group).toBe('vip');
  });

  it('handles never-expiring, unlimited, expired and exhausted tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await createOne(alice, { expired_time: -1, unlimited_quota: true, remain_quota: 0 })).toMatchObject({
      status: 1,
      expired_time: -1,
      unlimited_quota: true,
    });
    expect((await createOne(alice, { expired_time: now + 3600 })).status).toBe(1);
    expect((await createOne(alice, { expired_time: now - 10 })).status).toBe(3);
    expect((await createOne(alice, { remain_quota: 0 })).status).toBe(4);
  });

  it('switches status only between 1 and 2, and refuses to enable while expired or exhausted', async () => {
    const expired = await createOne(alice, { expired_time: Math.floor(Date.now() / 1000) - 10 });
    expect((await put(alice, { id: expired.id, status: 2 }, true)).data.status).toBe(2);
    expect((await put(alice, { id: expired.id, status: 1 }, true)).message).toMatch(/^status: .*expired/);
    expect((await put(alice, { id: expired.id, status: 3 }, true)).message).toBe('status: must be 1 (enabled) or 2 (disabled)');
    // The console's language: the refusal in Chinese for a zh-CN console, in English for en-US.
    const enable = (language: string) =>
      gateway.call('PUT', '/api/token/?status_only=true', { session: alice, body: { id: expired.id, status: 1 }, headers: { 'accept-language': language } });
    expect((await enable('zh-CN')).json().message).toBe('status: 令牌已过期，无法启用。请先修改过期时间，或设为永不过期');
    expect((await enable('en-US')).json().message).toBe(
      'status: the token has expired and cannot be enabled; change its expiry time or set it to never expire first',
    );
    // A full edit echoes the displayed status back (the console does); it is ignored, not refused.
    expect((await put(alice, { id: expired.id, expired_time: -1, status: 4 })).data.status).toBe(2);
    expect((await put(alice, { id: expired.id, status: 1 }, true)).data.status).toBe(1);

    const exhausted = await createOne(alice, { remain_quota: 0 });
    expect((await put(alice, { id: exhausted.id, status: 1 }, true)).message).toMatch(/^status: .*quota/);
    expect((await put(alice, { id: exhausted.id, remain_quota: 100 })).data.status).toBe(1);
    expect((await put(alice, { id: exhausted.id, status: 2 }, true)).data.status).toBe(2);
    expect((await put(alice, { id: exhausted.id, status: 1 }, true)).data).toMatchObject({ status: 1, remain_quota: 100 });
  });

  it('edits fields: model limits deduplicated, IPs normalised, quota moved by its delta on the live counter', async () => {
    const token = await createOne(alice, { remain_quota: 500000 });
    const { counters } = gateway.env.infra;
    const key = counterKeys.token(token.id);
    await counters.seed(key, 450000); // the relay holds 50000 in flight
    const answer = await put(alice, {
      id: token.id,
      name: 'edited',
      remain_quota: 600000,
      model_limits_enabled: true,
      model_limits: ' gpt-4o, gpt-4o ,claude-3,, ',
      allow_ips: '10.0.0.0/8, 2001:DB8::/32\n10.0.0.0/8',
      key: 'sk-attempted',
      user_id: bob.id,
      used_quota: 5,
    });
    expect(answer.data).toMatchObject({
      id: token.id,
      user_id: alice.id,
      name: 'edited',
      remain_quota: 600000,
      used_quota: 0,
      model_limits: 'gpt-4o,claude-3',
      allow_ips: '10.0.0.0/8\n2001:db8::/32',
    });
    expect(await counters.get(key)).toBe(550000);
    await put(alice, { id: token.id, remain_quota: 100000 });
    expect(await counters.get(key)).toBe(50000);
    // Turning unlimited on drops the counter: the relay reseeds it from the database when needed.
    await put(alice, { id: token.id, unlimited_quota: true });
    expect(await counters.get(key)).toBeNull();
  });

  it('keeps a deny list, a rate limit with its own text and the drawing modes through create, get, list, edit and resolve', async () => {
    const token = await createOne(alice, {
      name: 'guarded',
      deny_ips: '203.0.113.7, 198.51.100.0/24\n2001:DB8:BAD::/48\n203.0.113.7',
      rate_limits: { rpm: 3 },
      rate_limit_message: '  CI keys take 3 requests a minute  ',
      drawing_modes: ['turbo', 'relax', 'relax'],
    });
    const expected = {
      deny_ips: '203.0.113.7\n198.51.100.0/24\n2001:db8:bad::/48',
      rate_limits: { rpm: 3 },
      rate_limit_message: 'CI keys take 3 requests a minute',
      drawing_modes: ['relax', 'turbo'],
    };
    expect(token).toMatchObject(expected);
    expect((await gateway.call('GET', `/api/token/${token.id}`, { session: alice })).json().data).toMatchObject(expected);
    expect((await list(alice)).items.find((item: { id: number }) => item.id === token.id)).toMatchObject(expected);
    const stored = (await storedRows()).find((row) => Number(row.id) === token.id)!;
    expect(stored).toMatchObject({ deny_ips: expected.deny_ips, rate_limit_message: expected.rate_limit_message, drawing_modes: 'relax,turbo' });

    const resolve = async () =>
      (await gateway.env.infra.bus.request<{ token: Record<string, unknown> | null }>('billing.token.resolve', { key_hash: sha256(bare(token.key)) })).token;
    await waitFor(async () => (await resolve()) !== null, 5_000, 'account opened');
    expect(await resolve()).toMatchObject({
      deny_ips: ['203.0.113.7', '198.51.100.0/24', '2001:db8:bad::/48'],
      rate_limits: { rpm: 3 },
      rate_limit_message: expected.rate_limit_message,
      drawing_modes: ['relax', 'turbo'],
    });

    // An edit that leaves them out keeps them; one that names them replaces them, '' and [] clear them.
    expect((await put(alice, { id: token.id, name: 'guarded-2' })).data).toMatchObject(expected);
    const edited = await put(alice, { id: token.id, deny_ips: '::ffff:0:0/96', rate_limit_message: '', drawing_modes: [] });
    expect(edited.data).toMatchObject({ deny_ips: '::ffff:0.0.0.0/96', rate_limit_message: '', drawing_modes: [] });
    expect(await resolve()).toMatchObject({ deny_ips: ['::ffff:0.0.0.0/96'], rate_limit_message: '', drawing_modes: [] });
    const forToken = () => updated.filter((event) => (event.data as { token_id: number }).token_id === token.id);
    await waitFor(() => forToken().length >= 3, 5_000, 'token events');
    expect(forToken()[0]!.data).toMatchObject({
      deny_ips: expect.any(Array),
      rate_limit_message: expected.rate_limit_message,
      drawing_modes: ['relax', 'turbo'],
    });
    // A bad entry on edit names the list and changes nothing.
    expect((await put(alice, { id: token.id, deny_ips: '10.0.0.0/8 nope' })).message).toBe('deny_ips: "nope" is not an IP address or CIDR range');
    expect((await gateway.call('GET', `/api/token/${token.id}`, { session: alice })).json().data.deny_ips).toBe('::ffff:0.0.0.0/96');
  });

  it('reveals the full key to its owner only', async () => {
    const token = await createOne(alice);
    const revealed = (await gateway.call('POST', `/api/token/${token.id}/key`, { session: alice })).json();
    expect(revealed).toEqual({ success: true, message: '', data: { key: token.key } });
    for (const session of [bob, root]) {
      const refused = await gateway.call('POST', `/api/token/${token.id}/key`, { session });
      expect(refused.statusCode).toBe(404);
      expect(refused.body).not.toContain(bare(token.key));
    }
    expect((await gateway.call('POST', `/api/token/${token.id}/key`)).statusCode).toBe(401);
    // Rate-limited per user: a stolen session cannot dump every key at once.
    const statuses: number[] = [];
    for (let index = 0; index < 30; index++) statuses.push((await gateway.call('POST', `/api/token/${token.id}/key`, { session: alice })).statusCode);
    expect(statuses.filter((status) => status === 429).length).toBe(1); // 31 reveals this minute
    expect(statuses.at(-1)).toBe(429);
  });

  describe('batch reveal', () => {
    type Created = { id: number; key: string };
    const reveal = (session: Session | undefined, body: unknown) => gateway.call('POST', '/api/token/keys', { session, body });
    /** A user of their own, so the per-minute reveal count starts at zero. */
    const freshUser = async (name: string) => {
      expect((await gateway.register(name, `${name}-pass-1`)).json().success).toBe(true);
      return gateway.login(name, `${name}-pass-1`);
    };

    it('answers the caller’s own keys whole, in the order asked, and nobody else’s', async () => {
      const carol = await freshUser('carol');
      const created = (await post(carol, { name: 'batch', remain_quota: 500000, count: 3 })).data as Created[];
      const asked = [created[2]!, created[0]!, created[1]!];
      expect((await reveal(carol, { ids: asked.map((token) => token.id) })).json()).toEqual({
        success: true,
        message: '',
        data: asked.map(({ id, key }) => ({ id, key })),
      });

      // One id that is not the caller's refuses the whole batch, exactly like a missing id: nothing is revealed.
      const alices = await createOne(alice, { name: 'not-carols' });
      const theirs = await reveal(carol, { ids: [created[0]!.id, alices.id] });
      const missing = await reveal(carol, { ids: [created[0]!.id, 2_000_000_000] });
      for (const response of [theirs, missing]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ success: false, message: 'token not found' });
        expect(response.body).not.toContain(bare(created[0]!.key));
      }
      expect(theirs.body).not.toContain(bare(alices.key));
      for (const session of [bob, root]) {
        const refused = await reveal(session, { ids: created.map((token) => token.id) });
        expect(refused.statusCode).toBe(404);
        for (const token of created) expect(refused.body).not.toContain(bare(token.key));
      }
      expect((await reveal(carol, { ids: [99_999_999_999] })).statusCode).toBe(404);
      expect((await reveal(undefined, { ids: [created[0]!.id] })).statusCode).toBe(401);
    });

    it('names the field of a bad body', async () => {
      const message = async (body: unknown) => {
        const answer = (await reveal(alice, body)).json();
        expect(answer.success).toBe(false);
        return answer.message as string;
      };
      expect(await message({})).toMatch(/^ids\b/);
      expect(await message({ ids: 'all' })).toMatch(/^ids\b/);
      expect(await message({ ids: [] })).toMatch(/^ids\b/);
      expect(await message({ ids: Array.from({ length: 101 }, (_, index) => index + 1) })).toMatch(/^ids\b/);
      expect(await message({ ids: [3, 3] })).toMatch(/^ids: each id may appear only once/);
      expect(await message({ ids: [1, 0] })).toMatch(/^ids\.1: /);
      expect(await message({ ids: [1.5] })).toMatch(/^ids\.0: /);
    });

    it('counts a batch as one reveal against the per-minute limit the single route shares', async () => {
      const dave = await freshUser('dave');
      const ids = ((await post(dave, { name: 'limit', remain_quota: 500000, count: 3 })).data as Created[]).map((token) => token.id);
      const statuses: number[] = [];
      for (let index = 0; index < 29; index++) statuses.push((await reveal(dave, { ids })).statusCode);
      statuses.push((await gateway.call('POST', `/api/token/${ids[0]}/key`, { session: dave })).statusCode);
      expect(statuses.every((status) => status === 200)).toBe(true); // 29 batches of 3 and one single: 30 reveals
      expect((await reveal(dave, { ids })).statusCode).toBe(429);
      expect((await gateway.call('POST', `/api/token/${ids[0]}/key`, { session: dave })).statusCode).toBe(429);
    });
  });

  it('answers another user’s token exactly like a missing one, on every verb (BOLA)', async () => {
    const token = await createOne(alice, { name: 'mine' });
    const attempts = (id: number) => [
      gateway.call('GET', `/api/token/${id}`, { session: bob }),
      gateway.call('PUT', '/api/token/', { session: bob, body: { id, name: 'stolen', remain_quota: 1e9 } }),
      gateway.call('PUT', '/api/token/?status_only=true', { session: bob, body: { id, status: 2 } }),
      gateway.call('DELETE', `/api/token/${id}/`, { session: bob }),
      gateway.call('POST', `/api/token/${id}/key`, { session: bob }),
      gateway.call('GET', `/api/token/${id}`, { session: root }),
      gateway.call('DELETE', `/api/token/${id}`, { session: root }),
    ];
    const theirs = await Promise.all(attempts(token.id));
    const missing = await Promise.all(attempts(2_000_000_000));
    for (const [index, response] of theirs.entries()) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(missing[index]!.json());
    }
    expect((await gateway.call('GET', '/api/token/99999999999', { session: bob })).statusCode).toBe(404);
    expect((await gateway.call('GET', `/api/token/${token.id}`, { session: alice })).json().data).toMatchObject({
      name: 'mine',
      status: 1,
      remain_quota: 500000,
    });

    await createOne(bob, { name: 'bobs' });
    const bobs = await list(bob);
    expect(bobs.items.map((item: { user_id: number }) => item.user_id)).toEqual([bob.id]);
    const aliceIds = new Set((await list(alice)).items.map((item: { id: number }) => item.id));
    expect(bobs.items.some((item: { id: number }) => aliceIds.has(item.id))).toBe(false);
    expect((await gateway.call('GET', '/api/token/search?keyword=mine', { session: bob })).json().data.total).toBe(0);
    expect((await list(root)).items.some((item: { id: number }) => aliceIds.has(item.id))).toBe(false);
  });

  it('searches by name and by key: the whole key, its visible prefix or its masked form', async () => {
    const [target, other] = (await post(alice, { name: 'Findable', count: 2 })).data as Array<{ id: number; key: string }>;
    const search = async (session: Session, query: string) =>
      ((await gateway.call('GET', `/api/token/search?${query}`, { session })).json().data.items as Array<{ id: number }>).map((item) => item.id);
    expect(await search(alice, 'keyword=findABLE')).toEqual([other!.id, target!.id]);
    expect(await search(alice, `token=${target!.key}`)).toEqual([target!.id]);
    expect(await search(alice, `token=${bare(target!.key)}`)).toEqual([target!.id]);
    expect(await search(alice, `token=${target!.key.slice(0, 7)}`)).toContain(target!.id);
    const masked = `sk-${bare(target!.key).slice(0, 4)}**********${target!.key.slice(-4)}`;
    expect(await search(alice, `token=${encodeURIComponent(masked)}`)).toContain(target!.id);
    expect(await search(alice, `keyword=Findable&token=${target!.key}`)).toEqual([target!.id]);
    expect(await search(alice, `token=${encodeURIComponent("' OR 1=1 --")}`)).toEqual([]);
    expect(await search(alice, 'keyword=%25')).toEqual([]);
    expect(await search(bob, `token=${target!.key}`)).toEqual([]);
  });

  it('deletes, also with the trailing slash the console sends, and the key stops resolving', async () => {
    const token = await createOne(alice, { name: 'doomed' });
    await gateway.env.infra.counters.seed(counterKeys.token(token.id), 10);
    expect((await gateway.call('DELETE', `/api/token/${token.id}/`, { session: alice })).json()).toEqual({ success: true, message: '' });
    const gone = (language: string) => gateway.call('GET', `/api/token/${token.id}`, { session: alice, headers: { 'accept-language': language } });
    const inChinese = await gone('zh-CN');
    expect(inChinese.statusCode).toBe(404);
    expect(inChinese.json()).toEqual({ success: false, message: '令牌不存在' });
    expect((await gone('en-US')).json()).toEqual({ success: false, message: 'token not found' });
    expect((await gateway.call('DELETE', `/api/token/${token.id}`, { session: alice })).statusCode).toBe(404);
    expect(await gateway.env.infra.counters.get(counterKeys.token(token.id))).toBeNull();
    expect(await gateway.env.infra.bus.request('billing.token.resolve', { key_hash: sha256(bare(token.key)) })).toEqual({ token: null });
  });

  it('resolves a key hash for the relay with the owner’s status and group', async () => {
    const token = await createOne(alice, { name: 'relay', model_limits: 'gpt-4o,o3', allow_ips: '1.2.3.4\n10.0.0.0/8' });
    const resolve = (key_hash: string) => gateway.env.infra.bus.request<{ token: Record<string, unknown> | null }>('billing.token.resolve', { key_hash });
    await waitFor(async () => (await resolve(sha256(bare(token.key)))).token !== null, 5_000, 'account opened');
    expect(await resolve(sha256(bare(token.key)))).toEqual({
      token: {
        token_id: token.id,
        user_id: alice.id,
        name: 'relay',
        status: 1,
        expired_time: -1,
        unlimited_quota: false,
        model_limits_enabled: false,
        model_limits: ['gpt-4o', 'o3'],
        allow_ips: ['1.2.3.4', '10.0.0.0/8'],
        deny_ips: [],
        group: 'default',
        owner_status: 1,
        owner_group: 'default',
        owner_role: 1,
        rate_limits: {},
        rate_limit_message: '',
        drawing_modes: [],
        owner_rate_limits: {},
      },
    });
    await put(alice, { id: token.id, group: 'vip' });
    expect((await resolve(sha256(bare(token.key)))).token).toMatchObject({ group: 'vip', owner_group: 'default' });
    expect(await resolve(sha256('unknown'))).toEqual({ token: null });
    await expect(resolve('not-a-hash')).rejects.toThrow();
  });

  it('publishes billing.token.updated and billing.token.deleted after each change', async () => {
    const token = await createOne(alice, { name: 'evented' });
    const keyHash = sha256(bare(token.key));
    const forToken = (events: BusEvent[]) => events.filter((event) => (event.data as { token_id: number }).token_id === token.id);
    await waitFor(() => forToken(updated).length === 1, 5_000, 'created event');
    expect(forToken(updated)[0]!.data).toMatchObject({ token_id: token.id, user_id: alice.id, key_hash: keyHash, name: 'evented', owner_status: 1 });
    expect(JSON.stringify(forToken(updated)[0]!.data)).not.toContain(bare(token.key));

    await put(alice, { id: token.id, status: 2 }, true);
    await waitFor(() => forToken(updated).length === 2, 5_000, 'status event');
    expect(forToken(updated)[1]!.data).toMatchObject({ key_hash: keyHash, status: 2 });

    await gateway.call('DELETE', `/api/token/${token.id}`, { session: alice });
    await waitFor(() => forToken(deleted).length === 1, 5_000, 'deleted event');
    expect(forToken(deleted)[0]!.data).toEqual({ token_id: token.id, user_id: alice.id, key_hash: keyHash });
  });

  it('needs a login for every route', async () => {
    for (const [method, url] of [
      ['GET', '/api/token/'],
      ['GET', '/api/token/search'],
      ['GET', '/api/token/1'],
      ['POST', '/api/token/'],
      ['PUT', '/api/token/'],
      ['DELETE', '/api/token/1'],
      ['POST', '/api/token/1/key'],
      ['POST', '/api/token/keys'],
    ] as const) {
      expect((await gateway.call(method, url, { body: method === 'GET' || method === 'DELETE' ? undefined : {} })).statusCode).toBe(401);
    }
  });
});
