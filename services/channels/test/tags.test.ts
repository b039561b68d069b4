import type { DataSource } from 'typeorm';
import { backends, waitFor } from '@aigw/platform/testing';
import type { BusEvent } from '@aigw/platform';
import { type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { createChannels, startChannelsWorld, type ChannelsWorld } from './support/channels';

describe.each(backends)('channel tags and batch operations (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let db: DataSource;
  let updated: BusEvent[];
  let deleted: BusEvent[];

  let world: ChannelsWorld | undefined;

  beforeAll(async () => {
    world = await startChannelsWorld(backend);
    ({ gateway, root, db, updated, deleted } = world);
  });
  afterAll(async () => {
    await world?.close();
  });

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    (await gateway.call(method, url, { session: root, body })).json();
  const get = async (id: number) => (await call('GET', `/api/channel/${id}`)).data;
  const abilityRows = async (ids: number[]) =>
    (
      await db.query<Array<Record<string, unknown>>>(
        `SELECT * FROM abilities WHERE channel_id IN (${ids.map(Number).join(',')}) ORDER BY channel_id, "group", model`,
      )
    ).map((row) => ({
      channel_id: Number(row.channel_id),
      group: row.group,
      model: row.model,
      enabled: Boolean(row.enabled),
      priority: Number(row.priority),
      weight: Number(row.weight),
      tag: row.tag,
    }));
  const lastEvent = (id: number) =>
    updated.filter((event) => (event.data as { id: number }).id === id).at(-1)?.data as { status: number; tag: string; version: number } | undefined;

  it('disables and enables every channel of a tag', async () => {
    const tagged = await createChannels(gateway, root, { name: 'team', key: 'k-a\nk-b', tag: 'team-a' });
    const [other] = await createChannels(gateway, root, { name: 'other', key: 'k-c', tag: 'team-b' });
    expect(await call('POST', '/api/channel/tag/disabled', { tag: 'team-a' })).toEqual({ success: true, message: '', data: 2 });
    for (const id of tagged) expect((await get(id)).status).toBe(2);
    expect((await get(other!)).status).toBe(1);
    expect((await abilityRows(tagged)).every((row) => !row.enabled)).toBe(true);
    await waitFor(() => tagged.every((id) => lastEvent(id)?.status === 2), 5_000, 'disable events');

    expect(await call('POST', '/api/channel/tag/enabled', { tag: 'team-a' })).toMatchObject({ success: true, data: 2 });
    expect((await abilityRows(tagged)).every((row) => row.enabled)).toBe(true);
    await waitFor(() => tagged.every((id) => lastEvent(id)?.status === 1), 5_000, 'enable events');
    expect(await call('POST', '/api/channel/tag/enabled', { tag: '' })).toEqual({ success: false, message: 'tag cannot be empty' });
    expect(await call('POST', '/api/channel/tag/disabled', {})).toMatchObject({ success: false, message: 'tag cannot be empty' });
  });

  it('edits a tag: rename, mapping, groups, models, priority, weight, with abilities rebuilt', async () => {
    const ids = await createChannels(gateway, root, { name: 'edit', key: 'k-1\nk-2', tag: 'editable', models: 'm1' });
    const answer = await call('PUT', '/api/channel/tag', {
      tag: 'editable',
      new_tag: 'edited',
      model_mapping: '{"m2":"m2-upstream"}',
      groups: 'vip, svip',
      models: 'm2,m3',
      priority: '7',
      weight: 3,
    });
    expect(answer).toEqual({ success: true, message: '', data: 2 });
    for (const id of ids) {
      expect(await get(id)).toMatchObject({ tag: 'edited', model_mapping: '{"m2":"m2-upstream"}', group: 'vip,svip', models: 'm2,m3', priority: 7, weight: 3 });
    }
    expect(await abilityRows([ids[0]!])).toEqual([
      { channel_id: ids[0], group: 'svip', model: 'm2', enabled: true, priority: 7, weight: 3, tag: 'edited' },
      { channel_id: ids[0], group: 'svip', model: 'm3', enabled: true, priority: 7, weight: 3, tag: 'edited' },
      { channel_id: ids[0], group: 'vip', model: 'm2', enabled: true, priority: 7, weight: 3, tag: 'edited' },
      { channel_id: ids[0], group: 'vip', model: 'm3', enabled: true, priority: 7, weight: 3, tag: 'edited' },
    ]);
    await waitFor(() => ids.every((id) => lastEvent(id)?.tag === 'edited'), 5_000, 'tag edit events');

    // Empty fields mean no change; only the weight changes here.
    expect(
      await call('PUT', '/api/channel/tag', { tag: 'edited', new_tag: 'edited', model_mapping: '', groups: '', models: '', priority: '', weight: 0 }),
    ).toMatchObject({ success: true, data: 2 });
    expect(await get(ids[0]!)).toMatchObject({ tag: 'edited', models: 'm2,m3', priority: 7, weight: 0 });
    // An empty new tag dissolves the tag.
    expect(await call('PUT', '/api/channel/tag', { tag: 'edited', new_tag: '' })).toMatchObject({ success: true, data: 2 });
    expect((await get(ids[1]!)).tag).toBe('');
  });

  it("refuses tag edits with the console messages, in the caller's language", async () => {
    await createChannels(gateway, root, { name: 'strict', key: 'k-s', tag: 'strict' });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ tag: 'strict' }, '没有任何修改！', 'nothing to change'],
      [{ tag: 'strict', new_tag: 'strict', models: '' }, '没有任何修改！', 'nothing to change'],
      [{ tag: '', priority: 1 }, '标签不能为空！', 'tag cannot be empty'],
      [{ tag: 'strict', model_mapping: '{not json' }, '模型映射必须是合法的 JSON 格式！', 'model_mapping must be a JSON object'],
      [{ tag: 'strict', model_mapping: '[1,2]' }, '模型映射必须是合法的 JSON 格式！', 'model_mapping must be a JSON object'],
      [{ tag: 'strict', priority: 1.5 }, '优先级必须是整数！', 'priority must be a whole number'],
      [{ tag: 'strict', priority: 'high' }, '优先级必须是整数！', 'priority must be a whole number'],
      [{ tag: 'strict', weight: -1 }, '权重必须是非负整数！', 'weight must be a whole number, 0 or more'],
      [{ tag: 'strict', weight: '2.5' }, '权重必须是非负整数！', 'weight must be a whole number, 0 or more'],
    ];
    const edit = async (body: Record<string, unknown>, language: string) =>
      (await gateway.call('PUT', '/api/channel/tag', { session: root, body, headers: { 'accept-language': language } })).json();
    for (const [body, chinese, english] of cases) {
      expect({ body, answer: await edit(body, 'zh-CN') }).toEqual({ body, answer: { success: false, message: chinese } });
      expect({ body, answer: await edit(body, 'en-US') }).toEqual({ body, answer: { success: false, message: english } });
    }
    // No Accept-Language: the console's default, Chinese.
    expect(await edit({ tag: 'strict' }, '')).toEqual({ success: false, message: '没有任何修改！' });
  });

  it('tags a selection and deletes a selection, answering the counts', async () => {
    const ids = await createChannels(gateway, root, { name: 'selected', key: 'k-x\nk-y\nk-z' });
    expect(await call('POST', '/api/channel/batch/tag', { ids: [ids[0], ids[1], 424242], tag: 'picked' })).toEqual({ success: true, message: '', data: 2 });
    expect((await get(ids[0]!)).tag).toBe('picked');
    expect((await get(ids[2]!)).tag).toBe('');
    expect((await abilityRows([ids[1]!])).every((row) => row.tag === 'picked')).toBe(true);
    expect(await call('POST', '/api/channel/batch/tag', { ids: [], tag: 'x' })).toEqual({ success: false, message: 'ids: select the channels to tag first' });
    expect(await call('POST', '/api/channel/batch/tag', { ids: [ids[0]], tag: ' ' })).toEqual({ success: false, message: 'tag cannot be empty' });

    expect(await call('POST', '/api/channel/batch', { ids: [ids[0], ids[1], 424242] })).toEqual({ success: true, message: '', data: 2 });
    expect(await abilityRows([ids[0]!, ids[1]!])).toEqual([]);
    expect((await get(ids[2]!)).id).toBe(ids[2]);
    await waitFor(() => [ids[0], ids[1]].every((id) => deleted.some((event) => (event.data as { id: number }).id === id)), 5_000, 'deleted events');
    expect(await call('POST', '/api/channel/batch', { ids: [] })).toEqual({ success: false, message: 'ids: select the channels to delete first' });
    const chinese = (await gateway.call('POST', '/api/channel/batch', { session: root, body: { ids: [] }, headers: { 'accept-language': 'zh-CN' } })).json();
    expect(chinese).toEqual({ success: false, message: 'ids: 请先选择要删除的通道！' });
    expect((await call('POST', '/api/channel/batch', { ids: ['x'] })).message).toMatch(/^ids\.0: /);
  });

  it('shows one row per tag in tag mode, untagged channels as their own rows', async () => {
    const page = (await call('GET', '/api/channel/?tag_mode=true&page_size=100&id_sort=true')).data;
    const all = (await call('GET', '/api/channel/?page_size=100&id_sort=true')).data;
    const tags = new Set(all.items.map((item: { tag: string }) => item.tag).filter(Boolean));
    const untagged = all.items.filter((item: { tag: string }) => !item.tag).length;
    expect(page.total).toBe(tags.size + untagged);
    expect(page.items).toHaveLength(tags.size + untagged);
    const team = page.items.find((item: { tag?: string; children?: unknown[] }) => item.tag === 'team-a' && item.children);
    expect(team).toMatchObject({ name: 'team-a', channel_count: 2, enabled_count: 2, status: 1, group: 'default', models: 'gpt-4o,gpt-4o-mini' });
    expect(team.children.map((child: { tag: string }) => child.tag)).toEqual(['team-a', 'team-a']);
    expect(JSON.stringify(page)).not.toMatch(/k-a|k-b/);

    const paged = (await call('GET', '/api/channel/?tag_mode=true&page_size=2&p=2&id_sort=true')).data;
    expect(paged).toMatchObject({ total: page.total, page: 2, page_size: 2, items: page.items.slice(2, 4) });
    const searched = (await call('GET', '/api/channel/search?tag_mode=true&keyword=team')).data;
    expect(searched.items).toHaveLength(1);
    expect(searched.items[0]).toMatchObject({ tag: 'team-a', channel_count: 2 });
  });

  it('deletes every disabled channel (by hand or automatically)', async () => {
    const [manual, automatic, kept] = await createChannels(gateway, root, { name: 'sweep', key: 'k-m\nk-auto\nk-kept' });
    await call('PUT', '/api/channel/', { id: manual, status: 2 });
    await db.query(`UPDATE channels SET status = 3 WHERE id = ${Number(automatic)}`);
    const disabledBefore = Number((await db.query('SELECT COUNT(*) AS n FROM channels WHERE status <> 1'))[0].n);
    expect(await call('DELETE', '/api/channel/disabled')).toEqual({ success: true, message: '', data: disabledBefore });
    expect(await gateway.call('GET', `/api/channel/${manual}`, { session: root })).toMatchObject({ statusCode: 404 });
    expect(await gateway.call('GET', `/api/channel/${automatic}`, { session: root })).toMatchObject({ statusCode: 404 });
    expect((await get(kept!)).status).toBe(1);
    expect(await abilityRows([manual!, automatic!])).toEqual([]);
  });

  it('rebuilds the abilities from the channels (fix)', async () => {
    const [id] = await createChannels(gateway, root, { name: 'repair', key: 'k-r', models: 'r1,r2' });
    await db.query('DELETE FROM abilities');
    await db.query(
      `INSERT INTO abilities ("group", model, channel_id, enabled, priority, weight, tag) VALUES ('ghost', 'ghost', 999999, ${backend === 'real' ? 'true' : '1'}, 0, 0, '')`,
    );
    const channels = Number((await db.query('SELECT COUNT(*) AS n FROM channels'))[0].n);
    expect(await call('POST', '/api/channel/fix')).toEqual({ success: true, message: '', data: channels });
    expect((await abilityRows([id!])).map((row) => row.model)).toEqual(['r1', 'r2']);
    expect(await abilityRows([999999])).toEqual([]);
  });
});
