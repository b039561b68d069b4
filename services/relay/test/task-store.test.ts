import type { DataSource } from 'typeorm';
import { asyncTaskSchema, drawingTaskSchema } from '@aigw/contracts';
import { createSilentLogger, isUniqueViolation, openDatabase } from '@aigw/platform';
import { backends, createTestEnvironment, type TestEnvironment } from '@aigw/platform/testing';
import { relayEntities } from '../src/entities/index';
import { relayMigrations } from '../src/migrations/index';
import {
  addCharge,
  byTaskId,
  chargeRequestsOf,
  claimRefund,
  insert,
  list,
  TaskStatus,
  toAsyncTask,
  toDrawingTask,
  unfinished,
  update,
  type NewTask,
  type TaskFilter,
} from '../src/tasks/task-store';

/** Unix ms of a whole second, so the second-based filters have exact edges. */
const T = 1_715_000_000_000;
const SECOND = 1_000;
const page = (p = 1, page_size = 10) => ({ p, page_size });
const drawings: TaskFilter['platform'] = { only: 'midjourney' };
const others: TaskFilter['platform'] = { except: 'midjourney' };

describe.each(backends)('task store (%s)', (backend) => {
  let env: TestEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await createTestEnvironment(backend);
    db = await openDatabase({
      url: env.databaseUrl,
      dataDir: env.dataDir,
      schema: env.schema('relay'),
      entities: relayEntities,
      migrations: relayMigrations,
      logger: createSilentLogger(),
    });
  });
  afterAll(async () => {
    await db?.destroy();
    await env?.cleanup();
  });
  beforeEach(async () => {
    await db.query('DELETE FROM tasks');
  });

  const mj = (task: Partial<NewTask>) => insert(db, { platform: 'midjourney', user_id: 1, action: 'IMAGINE', ...task });
  const suno = (task: Partial<NewTask>) => insert(db, { platform: 'suno', user_id: 1, action: 'MUSIC', ...task });
  const ids = async (filter: TaskFilter, paging = page()) => (await list(db, filter, paging)).rows.map((row) => row.task_id);

  it('stores a task with empty defaults, its times and numbers read back as numbers', async () => {
    const stored = await mj({ task_id: 'mj-1', channel_id: 3, token_id: 9, quota: 5_000_000_000, submit_time: T, code: 1, status: 'SUBMITTED' });
    const [row] = (await list(db, { platform: drawings }, page())).rows;
    expect(row).toEqual({
      id: stored.id,
      platform: 'midjourney',
      user_id: 1,
      token_id: 9,
      channel_id: 3,
      action: 'IMAGINE',
      task_id: 'mj-1',
      code: 1,
      status: 'SUBMITTED',
      progress: '',
      prompt: '',
      prompt_en: '',
      description: '',
      image_url: '',
      data: '',
      buttons: '',
      properties: '',
      fail_reason: '',
      quota: 5_000_000_000,
      charge_requests: '',
      submit_time: T,
      start_time: 0,
      finish_time: 0,
      refunded: false,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    const defaulted = await suno({});
    expect(defaulted.status).toBe(TaskStatus.NotStart);
    expect(Math.abs(defaulted.submit_time - Date.now())).toBeLessThan(60_000);
  });

  it('refuses a second task with the same upstream id on the same platform, but not on another or without one', async () => {
    await mj({ task_id: 'same' });
    const refused = await mj({ task_id: 'same', user_id: 2 }).catch((error: unknown) => error);
    expect(isUniqueViolation(refused)).toBe(true);
    await suno({ task_id: 'same' });
    // Tasks the upstream has not accepted yet have no id: any number of them.
    await mj({});
    await mj({});
    expect((await list(db, { platform: drawings }, page())).total).toBe(3);
    expect((await byTaskId(db, 'midjourney', 'same'))?.user_id).toBe(1);
    expect(await byTaskId(db, 'midjourney', 'same', 2)).toBeNull();
    expect(await byTaskId(db, 'midjourney', '')).toBeNull();
  });

  it('lists Midjourney as drawings and every other platform as tasks', async () => {
    await mj({ task_id: 'm', submit_time: T });
    await suno({ task_id: 's', submit_time: T + 1 });
    await insert(db, { platform: 'kling', user_id: 1, action: 'VIDEO', task_id: 'k', submit_time: T + 2 });
    expect(await ids({ platform: drawings })).toEqual(['m']);
    expect(await ids({ platform: others })).toEqual(['k', 's']);
  });

  it('filters by user, channel, upstream id and submit time (unix seconds, both ends inclusive)', async () => {
    await mj({ task_id: 'a', user_id: 1, channel_id: 1, submit_time: T });
    await mj({ task_id: 'b', user_id: 2, channel_id: 1, submit_time: T + 10 * SECOND + 999 });
    await mj({ task_id: 'c', user_id: 1, channel_id: 2, submit_time: T + 11 * SECOND });
    const start = T / SECOND;
    expect(await ids({ platform: drawings, userId: 1 })).toEqual(['c', 'a']);
    expect(await ids({ platform: drawings, userId: 2 })).toEqual(['b']);
    expect(await ids({ platform: drawings, userId: 3 })).toEqual([]);
    expect(await ids({ platform: drawings, channelId: 1 })).toEqual(['b', 'a']);
    // Channel 0 is "any channel", as the console sends it.
    expect(await ids({ platform: drawings, channelId: 0 })).toEqual(['c', 'b', 'a']);
    expect(await ids({ platform: drawings, taskId: 'b' })).toEqual(['b']);
    expect(await ids({ platform: drawings, userId: 1, taskId: 'b' })).toEqual([]);
    expect(await ids({ platform: drawings, startTimestamp: start + 1 })).toEqual(['c', 'b']);
    expect(await ids({ platform: drawings, endTimestamp: start + 10 })).toEqual(['b', 'a']);
    expect(await ids({ platform: drawings, startTimestamp: start, endTimestamp: start })).toEqual(['a']);
    expect(await ids({ platform: drawings, userId: 1, channelId: 2, startTimestamp: start + 11, endTimestamp: start + 11 })).toEqual(['c']);
  });

  it('pages newest submit first, the newer id first within the same millisecond', async () => {
    for (let index = 0; index < 5; index += 1) await suno({ task_id: `t${index}`, submit_time: T + (index % 3) * SECOND });
    // Submit times: t0 T, t1 T+1s, t2 T+2s, t3 T, t4 T+1s.
    expect(await ids({ platform: others })).toEqual(['t2', 't4', 't1', 't3', 't0']);
    const second = await list(db, { platform: others }, page(2, 2));
    expect({ ids: second.rows.map((row) => row.task_id), total: second.total }).toEqual({ ids: ['t1', 't3'], total: 5 });
    expect(await ids({ platform: others }, page(3, 2))).toEqual(['t0']);
    expect(await ids({ platform: others }, page(4, 2))).toEqual([]);
  });

  it('gives the poller the unfinished tasks of one platform, oldest first, up to the limit', async () => {
    const statuses = ['NOT_START', 'SUBMITTED', 'SUCCESS', 'QUEUED', 'FAILURE', 'IN_PROGRESS', 'UNKNOWN'];
    for (const [index, status] of statuses.entries()) await mj({ task_id: `m-${status}`, status, submit_time: T + index });
    await suno({ task_id: 's-open', status: 'IN_PROGRESS' });
    expect((await unfinished(db, 'midjourney', 10)).map((row) => row.status)).toEqual(['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'UNKNOWN']);
    expect((await unfinished(db, 'midjourney', 2)).map((row) => row.status)).toEqual(['NOT_START', 'SUBMITTED']);
    expect((await unfinished(db, 'suno', 10)).map((row) => row.task_id)).toEqual(['s-open']);
  });

  it('updates a task, and claims its refund exactly once', async () => {
    const task = await mj({ task_id: 'u', submit_time: T, status: 'SUBMITTED' });
    const changes = {
      status: 'SUCCESS',
      progress: '100%',
      start_time: T + SECOND,
      finish_time: T + 9 * SECOND,
      image_url: 'https://cdn.example/u.png',
      buttons: '[{"customId":"U1"}]',
    };
    expect(await update(db, task.id, changes, T + 10 * SECOND)).toBe(true);
    expect(await update(db, task.id + 1000, { status: 'FAILURE' })).toBe(false);
    expect(await byTaskId(db, 'midjourney', 'u')).toMatchObject({ ...changes, updated_at: T + 10 * SECOND, refunded: false });

    const claims = await Promise.all([claimRefund(db, task.id), claimRefund(db, task.id), claimRefund(db, task.id)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimRefund(db, task.id)).toBe(false);
    expect((await byTaskId(db, 'midjourney', 'u'))?.refunded).toBe(true);
  });

  it('adds charges with their request ids in one statement each, so concurrent ones all count', async () => {
    const task = await mj({ task_id: 'charged', quota: 100, charge_requests: 'req-submit' });
    await Promise.all(Array.from({ length: 5 }, (_, index) => addCharge(db, task.id, 10, `req-modal-${index}`)));
    const row = await byTaskId(db, 'midjourney', 'charged');
    expect(row?.quota).toBe(150);
    expect(chargeRequestsOf(row!).sort()).toEqual(['req-modal-0', 'req-modal-1', 'req-modal-2', 'req-modal-3', 'req-modal-4', 'req-submit']);
  });

  it('stores text without NUL (PostgreSQL refuses it) and finds no task for an id that cannot be one', async () => {
    const task = await mj({ task_id: 'nul', prompt: 'a\u0000cat', status: 'SUBMITTED' });
    expect((await byTaskId(db, 'midjourney', 'nul'))?.prompt).toBe('acat');
    expect(await update(db, task.id, { fail_reason: 'bad\u0000byte' })).toBe(true);
    expect((await byTaskId(db, 'midjourney', 'nul'))?.fail_reason).toBe('badbyte');
    expect(await byTaskId(db, 'midjourney', '\u0000')).toBeNull();
    expect(await byTaskId(db, 'midjourney', 'x'.repeat(129))).toBeNull();
  });

  it('maps rows to the contracts, hiding the channel from their owner', async () => {
    const drawing = await mj({
      task_id: 'mj-9',
      channel_id: 4,
      code: 1,
      status: 'SUCCESS',
      progress: '100%',
      prompt: '猫',
      prompt_en: 'a cat',
      description: 'submitted',
      image_url: 'https://cdn.example/cat.png',
      buttons: '[{"customId":"MJ::JOB::upsample::1","label":"U1"}]',
      properties: '{"finalPrompt":"a cat"}',
      fail_reason: '',
      submit_time: T,
      start_time: T + SECOND,
      finish_time: T + 30 * SECOND,
    });
    const view = toDrawingTask(drawing);
    expect(view).toEqual({
      id: drawing.id,
      submit_time: T,
      start_time: T + SECOND,
      finish_time: T + 30 * SECOND,
      channel_id: 4,
      action: 'IMAGINE',
      mj_id: 'mj-9',
      code: 1,
      status: 'SUCCESS',
      progress: '100%',
      image_url: 'https://cdn.example/cat.png',
      prompt: '猫',
      prompt_en: 'a cat',
      description: 'submitted',
      buttons: '[{"customId":"MJ::JOB::upsample::1","label":"U1"}]',
      fail_reason: '',
    });
    expect(drawingTaskSchema.strict().parse(view)).toEqual(view);
    expect(toDrawingTask(drawing, true)).toEqual({ ...view, channel_id: 0 });

    const music = await suno({
      task_id: 'song',
      channel_id: 7,
      status: 'FAILURE',
      progress: '100%',
      fail_reason: 'upstream said no',
      data: '[{"audio_url":"https://cdn.example/a.mp3"}]',
    });
    const task = toAsyncTask(music);
    expect(task).toEqual({
      id: music.id,
      submit_time: music.submit_time,
      start_time: 0,
      finish_time: 0,
      progress: '100%',
      channel_id: 7,
      platform: 'suno',
      action: 'MUSIC',
      task_id: 'song',
      status: 'FAILURE',
      fail_reason: 'upstream said no',
      data: '[{"audio_url":"https://cdn.example/a.mp3"}]',
    });
    expect(asyncTaskSchema.strict().parse(task)).toEqual(task);
    expect(toAsyncTask(music, true).channel_id).toBe(0);
  });
});
