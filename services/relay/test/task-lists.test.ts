import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase } from '@aigw/platform';
import { backends } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { relayEntities } from '../src/entities/index';
import { relayMigrations } from '../src/migrations/index';
import { insert } from '../src/tasks/task-store';

/** Unix ms of a whole second; the lists' time filters are unix seconds. */
const T = 1_715_000_000_000;
const start = T / 1000;

describe.each(backends)('drawing and async task lists (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let painter: Session;
  let other: Session;

  const get = async (url: string, session: Session) => (await gateway.call('GET', url, { session })).json();
  const ids = async (url: string, session: Session, field: 'mj_id' | 'task_id') =>
    ((await get(url, session)).data.items as Array<Record<string, unknown>>).map((item) => item[field]);

  beforeAll(async () => {
    gateway = await startGateway(backend);
    // A second connection to the relay's own tables, where the task relays will write.
    db = await openDatabase({
      url: gateway.env.databaseUrl,
      dataDir: gateway.env.dataDir,
      schema: gateway.env.schema('relay'),
      entities: relayEntities,
      migrations: relayMigrations,
      logger: createSilentLogger(),
    });
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['painter', 'other']) await gateway.register(name, `${name}-pass`);
    painter = await gateway.login('painter', 'painter-pass');
    other = await gateway.login('other', 'other-pass');

    const mj = { platform: 'midjourney', action: 'IMAGINE' };
    await insert(db, {
      ...mj,
      user_id: painter.id,
      channel_id: 3,
      task_id: 'mj-old',
      submit_time: T,
      status: 'SUCCESS',
      progress: '100%',
      image_url: 'https://cdn.example/old.png',
    });
    await insert(db, {
      ...mj,
      user_id: painter.id,
      channel_id: 4,
      task_id: 'mj-new',
      submit_time: T + 60_000,
      status: 'FAILURE',
      fail_reason: 'banned prompt',
    });
    await insert(db, { ...mj, user_id: other.id, channel_id: 3, task_id: 'mj-other', submit_time: T + 30_000, status: 'IN_PROGRESS', progress: '40%' });
    const music = { platform: 'suno', action: 'MUSIC' };
    await insert(db, {
      ...music,
      user_id: painter.id,
      channel_id: 7,
      task_id: 'song',
      submit_time: T,
      status: 'SUCCESS',
      data: '[{"audio_url":"https://cdn.example/a.mp3"}]',
    });
    await insert(db, { ...music, user_id: other.id, channel_id: 8, task_id: 'lyrics', action: 'LYRICS', submit_time: T + 1_000 });
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  it('shows users their own drawings, newest first, without the channel', async () => {
    const body = await get('/api/mj/self?p=0', painter);
    expect(body).toEqual({
      success: true,
      message: '',
      data: { items: [expect.objectContaining({ mj_id: 'mj-new' }), expect.objectContaining({ mj_id: 'mj-old' })], total: 2, page: 1, page_size: 10 },
    });
    expect(body.data.items[0]).toMatchObject({ action: 'IMAGINE', status: 'FAILURE', fail_reason: 'banned prompt', submit_time: T + 60_000, channel_id: 0 });
    // Images go through this server's proxy (MjForwardUrlEnabled, on by default), which cannot
    // fetch the image of a channel that is gone: none is shown (tasks.test.ts has a live one).
    expect(body.data.items[1]).toMatchObject({ status: 'SUCCESS', progress: '100%', image_url: '' });
    expect(await ids('/api/mj/self', other, 'mj_id')).toEqual(['mj-other']);
    // Another user's task is not found by its id, and an admin filter is ignored.
    expect(await ids('/api/mj/self?mj_id=mj-other', painter, 'mj_id')).toEqual([]);
    expect(await ids('/api/mj/self?channel_id=3', painter, 'mj_id')).toEqual(['mj-new', 'mj-old']);
  });

  it('filters and pages the user lists', async () => {
    expect(await ids(`/api/mj/self?start_timestamp=${start + 1}`, painter, 'mj_id')).toEqual(['mj-new']);
    expect(await ids(`/api/mj/self?end_timestamp=${start}`, painter, 'mj_id')).toEqual(['mj-old']);
    expect(await ids('/api/mj/self?mj_id=mj-old', painter, 'mj_id')).toEqual(['mj-old']);
    expect((await get('/api/mj/self?p=2&page_size=1', painter)).data).toEqual({
      items: [expect.objectContaining({ mj_id: 'mj-old' })],
      total: 2,
      page: 2,
      page_size: 1,
    });
    expect((await get('/api/mj/self?p=3&page_size=1', painter)).data).toEqual({ items: [], total: 2, page: 3, page_size: 1 });
  });

  it('shows users their own async tasks with the result data', async () => {
    const body = await get('/api/task/self', painter);
    expect(body.data).toEqual({
      items: [
        expect.objectContaining({ task_id: 'song', platform: 'suno', action: 'MUSIC', channel_id: 0, data: '[{"audio_url":"https://cdn.example/a.mp3"}]' }),
      ],
      total: 1,
      page: 1,
      page_size: 10,
    });
    expect(await ids('/api/task/self', other, 'task_id')).toEqual(['lyrics']);
    expect(await ids('/api/task/self?task_id=lyrics', painter, 'task_id')).toEqual([]);
  });

  it('shows admins every user, with the channel and its filter', async () => {
    expect(await ids('/api/mj/?p=0', root, 'mj_id')).toEqual(['mj-new', 'mj-other', 'mj-old']);
    const filtered = await get('/api/mj/?channel_id=3', root);
    expect(filtered.data.items.map((item: { mj_id: string; channel_id: number }) => [item.mj_id, item.channel_id])).toEqual([
      ['mj-other', 3],
      ['mj-old', 3],
    ]);
    expect(await ids('/api/task/', root, 'task_id')).toEqual(['lyrics', 'song']);
    expect(await ids('/api/task/?channel_id=7', root, 'task_id')).toEqual(['song']);
    expect(await ids(`/api/task/?start_timestamp=${start + 1}&end_timestamp=${start + 1}`, root, 'task_id')).toEqual(['lyrics']);
  });

  it.each(['/api/mj/self', '/api/task/self'])('keeps %s to signed-in users', async (path) => {
    expect((await gateway.call('GET', path)).statusCode).toBe(401);
  });

  it.each(['/api/mj/', '/api/task/'])('keeps %s (every user) for admins', async (path) => {
    expect((await gateway.call('GET', `${path}?p=0`, { session: painter })).statusCode).toBe(403);
  });

  it('names the bad filter', async () => {
    const response = await gateway.call('GET', '/api/task/self?channel_id=abc', { session: painter });
    expect(response.json()).toEqual({ success: false, message: expect.stringMatching(/^channel_id\b/) });
  });
});
