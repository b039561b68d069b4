import crypto from 'node:crypto';
import type { DataSource } from 'typeorm';
import { backends, waitFor } from '@aigw/platform/testing';
import type { BusEvent } from '@aigw/platform';
import { type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { channelBody, startChannelsWorld, type ChannelsWorld } from './support/channels';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe.each(backends)('channels (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let db: DataSource;
  let updated: BusEvent[];
  let deleted: BusEvent[];
  /** Every response body of this file, checked for keys at the end. */
  const bodies: string[] = [];
  /** Every key given to a channel here. */
  const keys: string[] = [];

  let world: ChannelsWorld | undefined;

  beforeAll(async () => {
    world = await startChannelsWorld(backend);
    ({ gateway, root, db, updated, deleted } = world);
  });
  afterAll(async () => {
    await world?.close();
  });

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
    const response = await gateway.call(method, url, { session: root, body });
    bodies.push(response.body);
    return response.json();
  };
  const create = async (overrides: Record<string, unknown> = {}) => {
    const body = channelBody({ key: `sk-${crypto.randomUUID()}`, ...overrides });
    keys.push(
      ...String(body.key)
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    );
    const answer = await call('POST', '/api/channel/', body);
    expect(answer).toMatchObject({ success: true });
    return answer.data.ids as number[];
  };
  const abilities = async (channelId: number) =>
    (await db.query<Array<Record<string, unknown>>>(`SELECT * FROM abilities WHERE channel_id = ${Number(channelId)} ORDER BY "group", model`)).map((row) => ({
      group: row.group,
      model: row.model,
      enabled: Boolean(row.enabled),
      priority: Number(row.priority),
      weight: Number(row.weight),
      tag: row.tag,
    }));
  const eventsFor = (events: BusEvent[], id: number) => events.filter((event) => (event.data as { id: number }).id === id);

  it('creates a channel, stores the key encrypted and hashed, and shows it without the key', async () => {
    const [id] = await create({
      name: 'openai-main',
      models: ' gpt-4o , gpt-4o-mini,gpt-4o ',
      group: 'default,vip',
      priority: 3,
      weight: 7,
      model_mapping: '{"gpt-4o":"gpt-4o-2024-08-06"}',
    });
    const view = (await call('GET', `/api/channel/${id}`)).data;
    expect(view).toMatchObject({
      id,
      type: 1,
      name: 'openai-main',
      status: 1,
      group: 'default,vip',
      models: 'gpt-4o,gpt-4o-mini',
      priority: 3,
      weight: 7,
      auto_ban: 1,
      model_mapping: '{"gpt-4o":"gpt-4o-2024-08-06"}',
      balance: 0,
      used_quota: 0,
      response_time: 0,
      other_info: '',
    });
    expect(view).not.toHaveProperty('key');
    expect(view).not.toHaveProperty('key_encrypted');
    expect(view).not.toHaveProperty('key_hash');
    expect(view.created_time).toBeGreaterThan(Date.now() / 1000 - 60);

    const [row] = await db.query(`SELECT key_encrypted, key_hash, version FROM channels WHERE id = ${Number(id)}`);
    const key = keys.at(-1)!;
    expect(row.key_hash).toBe(sha256(key));
    expect(row.key_encrypted).not.toContain(key);
    expect(Number(row.version)).toBe(1);
    // The relay gets the plaintext only by request.
    expect(await gateway.env.infra.bus.request('channels.channel.key', { channel_id: id })).toEqual({ key });

    expect(await abilities(id!)).toEqual([
      { group: 'default', model: 'gpt-4o', enabled: true, priority: 3, weight: 7, tag: '' },
      { group: 'default', model: 'gpt-4o-mini', enabled: true, priority: 3, weight: 7, tag: '' },
      { group: 'vip', model: 'gpt-4o', enabled: true, priority: 3, weight: 7, tag: '' },
      { group: 'vip', model: 'gpt-4o-mini', enabled: true, priority: 3, weight: 7, tag: '' },
    ]);
    await waitFor(() => eventsFor(updated, id!).length === 1, 5_000, 'updated event');
    expect(eventsFor(updated, id!)[0]!.data).toEqual({
      id,
      type: 1,
      name: 'openai-main',
      status: 1,
      groups: ['default', 'vip'],
      models: ['gpt-4o', 'gpt-4o-mini'],
      base_url: '',
      other: '',
      model_mapping: { 'gpt-4o': 'gpt-4o-2024-08-06' },
      status_code_mapping: {},
      param_override: {},
      setting: {},
      priority: 3,
      weight: 7,
      tag: '',
      auto_ban: 1,
      openai_organization: '',
      allow_private_network: false,
      multi_key: null,
      rate_limits: {},
      version: 1,
    });
  });

  it('creates one channel per key line (batch), each with its own key', async () => {
    const ids = await create({ name: 'batch', key: `sk-batch-${crypto.randomUUID()}\n\n  sk-batch-${crypto.randomUUID()}  \nsk-batch-${crypto.randomUUID()}` });
    expect(ids).toHaveLength(3);
    const batchKeys = keys.slice(-3);
    for (const [index, id] of ids.entries()) {
      expect((await call('GET', `/api/channel/${id}`)).data).toMatchObject({ name: 'batch', status: 1 });
      expect(await gateway.env.infra.bus.request('channels.channel.key', { channel_id: id })).toEqual({ key: batchKeys[index] });
    }
  });

  it('refuses bad input naming the field, and creates nothing', async () => {
    const before = (await call('GET', '/api/channel/?p=1&page_size=100')).data.total;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: '' }, /^name is required/],
      [{ name: undefined }, /^name\b/],
      [{ key: '   ' }, /^key is required/],
      [{ group: '' }, /^group is required/],
      [{ models: ' , ' }, /^models: at least one is required/],
      [{ models: 'x'.repeat(300) }, /^models: .* longer than 128 characters/],
      // The relay and the usage records take model names of at most 128 characters: so does a channel.
      [{ models: `gpt-4o,${'m'.repeat(129)}` }, /^models: .* longer than 128 characters/],
      [{ type: 29 }, /^type is not a known channel type/],
      [{ type: 'openai' }, /^type\b/],
      [{ model_mapping: '{bad' }, /^model_mapping must be a JSON object/],
      [{ model_mapping: '{"a":{"b":1}}' }, /^model_mapping: the value of "a" must be a string/],
      [{ setting: '[1]' }, /^setting /],
      [{ priority: -1000 }, /^priority\b/],
      [{ weight: -1 }, /^weight\b/],
      [{ weight: 1.5 }, /^weight\b/],
      [{ auto_ban: 2 }, /^auto_ban\b/],
      [{ status: 3 }, /^status\b/],
      // The signed providers' key formats, per line in a batch.
      [{ type: 33, key: 'AKIA1|secret' }, /^key: an AWS Bedrock key is "access key\|secret key\|region"/],
      [{ type: 41, key: 'sk-not-a-service-account' }, /^key: a Vertex AI key is a service-account JSON key/],
      [{ type: 15, key: 'api-key|secret-key\nonly-one-part' }, /^key: a Baidu key is "API key\|secret key" \(line 2\)$/],
    ];
    for (const [overrides, message] of cases) {
      const answer = await call('POST', '/api/channel/', channelBody(overrides));
      expect({ overrides, answer }).toMatchObject({ answer: { success: false, message: expect.stringMatching(message) } });
    }
    expect((await call('GET', '/api/channel/?p=1&page_size=100')).data.total).toBe(before);
    // A key changed on edit is checked against the channel's type too.
    const [aws] = await create({ name: 'aws', type: 33, key: 'AKIA1|secret|us-east-1' });
    expect((await call('PUT', '/api/channel/', { id: aws, key: 'AKIA1' })).message).toMatch(/^key: an AWS Bedrock key/);
    expect(await gateway.env.infra.bus.request('channels.channel.key', { channel_id: aws })).toEqual({ key: 'AKIA1|secret|us-east-1' });
    expect((await call('PUT', '/api/channel/', { id: 'x' })).message).toMatch(/^id\b/);
    expect((await call('GET', '/api/channel/abc')).message).toMatch(/^id\b/);
    expect((await call('GET', '/api/channel/99999999999')).message).toMatch(/^id is too large/);
    expect(await gateway.call('GET', '/api/channel/424242', { session: root })).toMatchObject({ statusCode: 404 });
    expect((await call('GET', '/api/channel/?page_size=101')).message).toMatch(/^page_size\b/);
  });

  it("answers the channel form's validation errors in the caller's language", async () => {
    const form = async (method: 'POST' | 'PUT', body: Record<string, unknown>, language: string) => {
      const response = await gateway.call(method, '/api/channel/', { session: root, body, headers: { 'accept-language': language } });
      bodies.push(response.body);
      return response.json();
    };
    const [id] = await create({ name: 'worded' });
    const cases: Array<['POST' | 'PUT', Record<string, unknown>, string, string]> = [
      ['POST', channelBody({ name: '' }), '请输入渠道名称', 'name is required'],
      ['POST', channelBody({ key: ' ' }), '请输入密钥', 'key is required'],
      ['POST', channelBody({ group: '' }), '请选择可以使用该渠道的分组', 'group is required'],
      ['POST', channelBody({ models: '' }), '请至少选择一个模型！', 'models is required'],
      ['POST', channelBody({ models: ' , ' }), 'models：至少需要填写一项', 'models: at least one is required'],
      ['POST', channelBody({ type: 29 }), '未知的渠道类型', 'type is not a known channel type'],
      ['POST', channelBody({ model_mapping: '{bad' }), '模型映射必须是合法的 JSON 格式！', 'model_mapping must be a JSON object'],
      ['POST', channelBody({ status_code_mapping: '[1]' }), '状态码复写必须是合法的 JSON 格式！', 'status_code_mapping must be a JSON object'],
      ['POST', channelBody({ param_override: 'x' }), '参数覆盖必须是合法的 JSON 格式！', 'param_override must be a JSON object'],
      ['POST', channelBody({ setting: '1' }), '渠道额外设置必须是合法的 JSON 格式！', 'setting must be a JSON object'],
      // A name an admin typed comes back as typed, braces and all.
      ['POST', channelBody({ model_mapping: '{"{a}":{"b":1}}' }), 'model_mapping：“{a}”的值必须是字符串', 'model_mapping: the value of "{a}" must be a string'],
      ['POST', channelBody({ status: 3 }), 'status: 只能是 1（启用）或 2（禁用）', 'status: must be 1 (enabled) or 2 (disabled)'],
      [
        'POST',
        channelBody({ type: 15, key: 'api-key|secret-key\nonly-one-part' }),
        'key：百度密钥的格式为“APIKey|SecretKey” （第 2 行）',
        'key: a Baidu key is "API key|secret key" (line 2)',
      ],
      ['PUT', { id, status: 3 }, 'status: 只能是 1（启用）或 2（禁用）', 'status: must be 1 (enabled) or 2 (disabled)'],
      ['PUT', { id: 424242, name: 'ghost' }, '渠道不存在', 'channel not found'],
    ];
    for (const [method, body, chinese, english] of cases) {
      expect({ body, answer: await form(method, body, 'zh-CN') }).toEqual({ body, answer: { success: false, message: chinese } });
      expect({ body, answer: await form(method, body, 'en-US') }).toEqual({ body, answer: { success: false, message: english } });
    }
    // No Accept-Language: the console's default, Chinese.
    expect(await form('POST', channelBody({ name: '' }), '')).toEqual({ success: false, message: '请输入渠道名称' });
  });

  it('updates partially: absent fields and an empty key keep their values; inline priority and weight', async () => {
    const [id] = await create({ name: 'partial', base_url: 'https://up.example.com', tag: 'keep', weight: 4, auto_ban: 0, openai_organization: 'org-1' });
    const key = keys.at(-1)!;
    const answer = await call('PUT', '/api/channel/', { id, priority: 9 });
    expect(answer).toMatchObject({
      success: true,
      data: { id, status: 1, priority: 9, weight: 4, base_url: 'https://up.example.com', tag: 'keep', auto_ban: 0, openai_organization: 'org-1' },
    });
    expect((await call('PUT', '/api/channel/', { id, weight: 11, key: '' })).data).toMatchObject({ priority: 9, weight: 11 });
    expect(await gateway.env.infra.bus.request('channels.channel.key', { channel_id: id })).toEqual({ key });
    expect((await abilities(id!)).every((ability) => ability.priority === 9 && ability.weight === 11 && ability.tag === 'keep')).toBe(true);

    const newKey = `sk-${crypto.randomUUID()}`;
    keys.push(newKey);
    expect((await call('PUT', '/api/channel/', { id, key: newKey, models: 'claude-3-5-haiku-20241022', type: 14 })).success).toBe(true);
    expect(await gateway.env.infra.bus.request('channels.channel.key', { channel_id: id })).toEqual({ key: newKey });
    expect((await abilities(id!)).map((ability) => ability.model)).toEqual(['claude-3-5-haiku-20241022']);

    await waitFor(() => eventsFor(updated, id!).length === 4, 5_000, 'one event per change');
    expect(eventsFor(updated, id!).map((event) => (event.data as { version: number }).version)).toEqual([1, 2, 3, 4]);
    expect(await call('PUT', '/api/channel/', { id: 424242, name: 'ghost' })).toMatchObject({ success: false, message: 'channel not found' });
    expect((await call('PUT', '/api/channel/', { id, weight: -1 })).message).toMatch(/^weight\b/);
  });

  it('sets status 1 or 2 by hand, flips the abilities, and refuses setting 3', async () => {
    const [id] = await create({ name: 'status' });
    expect(await call('PUT', '/api/channel/', { id, status: 2 })).toMatchObject({ success: true, data: { status: 2 } });
    expect((await abilities(id!)).every((ability) => !ability.enabled)).toBe(true);
    await expect(gateway.env.infra.bus.request('channels.channel.key', { channel_id: id })).rejects.toThrow(/not enabled/);
    expect(await call('PUT', '/api/channel/', { id, status: 3 })).toMatchObject({ success: false, message: 'status: must be 1 (enabled) or 2 (disabled)' });
    expect(await call('PUT', '/api/channel/', { id, status: 1 })).toMatchObject({ success: true, data: { status: 1 } });
    expect((await abilities(id!)).every((ability) => ability.enabled)).toBe(true);
    await waitFor(() => eventsFor(updated, id!).length === 3, 5_000, 'status events');
    expect(eventsFor(updated, id!).map((event) => (event.data as { status: number }).status)).toEqual([1, 2, 1]);
  });

  it('keeps channel and abilities unchanged when the abilities rebuild fails (one transaction)', async () => {
    const [id] = await create({ name: 'atomic', models: 'model-a' });
    await waitFor(() => eventsFor(updated, id!).length === 1, 5_000, 'created event');
    // A trigger makes inserting the ability for model "boom" fail, after the channel row was updated.
    if (backend === 'real') {
      await db.query(
        `CREATE FUNCTION refuse_boom() RETURNS trigger AS $$ BEGIN IF NEW.model = 'boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await db.query('CREATE TRIGGER refuse_boom BEFORE INSERT ON abilities FOR EACH ROW EXECUTE FUNCTION refuse_boom()');
    } else {
      await db.query(`CREATE TRIGGER refuse_boom BEFORE INSERT ON abilities WHEN NEW.model = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`);
    }
    try {
      const before = await abilities(id!);
      const eventsBefore = eventsFor(updated, id!).length;
      const response = await gateway.call('PUT', '/api/channel/', { session: root, body: { id, models: 'model-a,boom', priority: 5 } });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ success: false, message: 'internal server error, contact the administrator' });
      expect((await call('GET', `/api/channel/${id}`)).data).toMatchObject({ models: 'model-a', priority: 0 });
      expect(await abilities(id!)).toEqual(before);
      // A change that commits is announced after any the failed one could have made (events of a subject keep their order).
      expect(await call('PUT', '/api/channel/', { id, priority: 7 })).toMatchObject({ success: true });
      await waitFor(() => eventsFor(updated, id!).length > eventsBefore, 5_000, 'the later change announced');
      expect(
        eventsFor(updated, id!)
          .slice(eventsBefore)
          .map((event) => (event.data as { priority: number }).priority),
      ).toEqual([7]);
    } finally {
      await db.query('DROP TRIGGER refuse_boom' + (backend === 'real' ? ' ON abilities' : ''));
    }
  });

  it('lists in pages by priority then id, or by id; p 0 and 1 are the first page', async () => {
    await create({ name: 'low', priority: -5 });
    await create({ name: 'high', priority: 50 });
    const all = (await call('GET', '/api/channel/?p=0&page_size=100')).data;
    const byPriority = [...all.items].sort(
      (a: { priority: number; id: number }, b: { priority: number; id: number }) => b.priority - a.priority || b.id - a.id,
    );
    expect(all.items.map((item: { id: number }) => item.id)).toEqual(byPriority.map((item: { id: number }) => item.id));
    expect(all.items[0].name).toBe('high');
    const byId = (await call('GET', '/api/channel/?p=1&page_size=100&id_sort=true')).data;
    const ids = byId.items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const first = (await call('GET', '/api/channel/?p=0&page_size=2&id_sort=true')).data;
    expect(first).toEqual({ items: byId.items.slice(0, 2), total: byId.total, page: 1, page_size: 2 });
    expect((await call('GET', '/api/channel/?p=1&page_size=2&id_sort=true')).data).toEqual(first);
    expect((await call('GET', '/api/channel/?p=2&page_size=2&id_sort=true')).data.items).toEqual(byId.items.slice(2, 4));
    expect((await call('GET', '/api/channel/')).data.page_size).toBe(10);
  });

  it('searches by id, name, exact key, group and model', async () => {
    const secretKey = `sk-findme-${crypto.randomUUID()}`;
    const [id] = await create({ name: 'Needle Channel', key: secretKey, group: 'svip', models: 'deepseek-chat,deepseek-reasoner', type: 43 });
    const search = async (query: string) => (await call('GET', `/api/channel/search?${query}`)).data.items.map((item: { id: number }) => item.id);
    expect(await search(`keyword=${id}`)).toContain(id);
    expect(await search('keyword=needle')).toEqual([id]);
    expect(await search(`keyword=${encodeURIComponent(secretKey)}`)).toEqual([id]);
    expect(await search(`keyword=${encodeURIComponent(secretKey.slice(0, -2))}`)).toEqual([]); // a key matches whole only
    expect(await search('group=svip')).toEqual([id]);
    expect(await search('group=sv')).toEqual([]);
    expect(await search('model=reasoner')).toEqual([id]);
    expect(await search('model=reasoner&group=default')).toEqual([]);
    expect(await search('keyword=%25')).toEqual([]); // % matches itself
  });

  it('copies with a suffix, zero balance and used quota, the same key', async () => {
    const [id] = await create({ name: 'original', tag: 'copyable', priority: 2 });
    await db.query(`UPDATE channels SET balance = 12.5, used_quota = 999, response_time = 300 WHERE id = ${Number(id)}`);
    const answer = (await gateway.call('POST', `/api/channel/copy/${id}`, { session: root, headers: { 'accept-language': 'zh-CN' } })).json();
    expect(answer).toMatchObject({ success: true, data: { id: expect.any(Number) } });
    const copy = (await call('GET', `/api/channel/${answer.data.id}`)).data;
    expect(copy).toMatchObject({
      name: 'original_复制',
      tag: 'copyable',
      priority: 2,
      balance: 0,
      used_quota: 0,
      response_time: 0,
      models: 'gpt-4o,gpt-4o-mini',
    });
    expect(await gateway.env.infra.bus.request('channels.channel.key', { channel_id: answer.data.id })).toEqual({ key: keys.at(-1) });
    expect((await abilities(answer.data.id)).length).toBe(2);
    // Without a suffix the copy is named in the admin's language (the console sends it).
    const english = (await gateway.call('POST', `/api/channel/copy/${id}`, { session: root, headers: { 'accept-language': 'en-US' } })).json();
    expect((await call('GET', `/api/channel/${english.data.id}`)).data).toMatchObject({ name: 'original_copy' });
    const custom = await call('POST', `/api/channel/copy/${id}?suffix=-b&reset_balance=false`);
    expect((await call('GET', `/api/channel/${custom.data.id}`)).data).toMatchObject({ name: 'original-b', balance: 12.5, used_quota: 999 });
    expect(await gateway.call('POST', '/api/channel/copy/424242', { session: root })).toMatchObject({ statusCode: 404 });
  });

  it('deletes a channel with its abilities and publishes the deletion', async () => {
    const [id] = await create({ name: 'doomed' });
    expect(await call('DELETE', `/api/channel/${id}/`)).toEqual({ success: true, message: '' });
    expect(await abilities(id!)).toEqual([]);
    expect(await gateway.call('GET', `/api/channel/${id}`, { session: root })).toMatchObject({ statusCode: 404 });
    expect(await gateway.call('DELETE', `/api/channel/${id}`, { session: root })).toMatchObject({ statusCode: 404 });
    await waitFor(() => eventsFor(deleted, id!).length === 1, 5_000, 'deleted event');
    await expect(gateway.env.infra.bus.request('channels.channel.key', { channel_id: id })).rejects.toThrow(/not found/);
  });

  it('answers the routing snapshot with every channel, without keys', async () => {
    const snapshot = await gateway.env.infra.bus.request<{ channels: Array<{ id: number; version: number }> }>('channels.routing.snapshot', {});
    const listed = (await call('GET', '/api/channel/?page_size=100&id_sort=true')).data;
    expect(snapshot.channels.map((channel) => channel.id).sort((a, b) => a - b)).toEqual(
      listed.items.map((item: { id: number }) => item.id).sort((a: number, b: number) => a - b),
    );
    bodies.push(JSON.stringify(snapshot));
  });

  it('never shows a key in any response or event', () => {
    expect(keys.length).toBeGreaterThan(5);
    const published = JSON.stringify([...updated, ...deleted].map((event) => event.data));
    for (const key of keys) {
      for (const body of bodies) expect(body.includes(key)).toBe(false);
      expect(published.includes(key)).toBe(false);
    }
  });
});
