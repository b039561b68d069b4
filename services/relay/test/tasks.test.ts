import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { reconcile } from '../../billing/src/reconcile';
import { LedgerEntryEntity, LogEntity } from '../../billing/src/entities/index';
import { relayEntities, TaskEntity } from '../src/entities/index';
import { relayMigrations } from '../src/migrations/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';
import { notifySecret } from '../src/tasks/task-links';

jest.setTimeout(120_000);

/** QuotaPerUnit 500,000 x the default ModelPrice (mj_imagine $0.1, mj_upscale $0.05, suno_music $0.1, suno_lyrics $0.01). */
const PRICE = { mj_imagine: 50_000, mj_upscale: 25_000, suno_music: 50_000, suno_lyrics: 5_000 };

type Json = Record<string, unknown>;

/**
 * Midjourney and Suno through the relay against the mock's midjourney-proxy and Suno API: a
 * submit is charged once when the upstream accepts it, the poller (every 150 ms here) follows
 * the task, and a failure or a timeout gives the charge back once, to the user and the API key.
 */
describe.each(backends)('async tasks (%s)', (backend) => {
  let world: RelayWorld;
  let billing: DataSource;
  let relayDb: DataSource;
  let mjChannel: number;
  let mjSpare: number;
  let sunoChannel: number;
  /** A limited key of the user, to see its quota come back. */
  let limitedKey: string;
  let limitedId: number;

  const call = async (method: string, path: string, body?: unknown, key = world.apiKey, headers: Record<string, string> = {}) => {
    const response = await fetch(`${world.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, requestId: response.headers.get('x-oneapi-request-id') ?? '', body: (text ? JSON.parse(text) : null) as Json };
  };
  const fetchTask = async (id: string, key = world.apiKey) => (await call('GET', `/mj/task/${id}/fetch`, undefined, key)).body;
  const untilStatus = async (id: string, status: string, key = world.apiKey) => {
    await waitFor(async () => (await fetchTask(id, key)).status === status, 30_000, `task ${id} ${status}`);
    return fetchTask(id, key);
  };
  const tokenRemain = async () => (await world.gateway.call('GET', `/api/token/${limitedId}`, { session: world.user })).json().data.remain_quota as number;
  const refundsOf = async (taskRow: number) => billing.getRepository(LedgerEntryEntity).countBy({ request_id: `task-refund-${taskRow}` });
  /** The poller's last recorded run (root's job list). */
  const pollRun = async () => {
    const jobs = (await world.gateway.call('GET', '/api/job/', { session: world.root })).json().data as Array<{
      name: string;
      last_run: { started_at: number; summary: string } | null;
    }>;
    return jobs.find((job) => job.name === 'relay.tasks.poll')?.last_run ?? null;
  };
  const row = async (platform: string, taskId: string) => relayDb.getRepository(TaskEntity).findOneByOrFail({ platform, task_id: taskId });

  beforeAll(async () => {
    world = await startRelayWorld(backend, { env: { TASK_POLL_INTERVAL_MS: '150' } });
    billing = await openBillingDatabase(world.gateway.env);
    relayDb = await openDatabase({
      url: world.gateway.env.databaseUrl,
      dataDir: world.gateway.env.dataDir,
      schema: world.gateway.env.schema('relay'),
      entities: relayEntities,
      migrations: relayMigrations,
      logger: createSilentLogger(),
    });
    const mjModels = 'mj_imagine,mj_upscale,mj_variation,mj_reroll,mj_describe,mj_shorten,mj_blend,mj_modal,mj_inpaint,mj_video';
    mjChannel = await world.addChannel({ name: 'mj', type: 2, key: 'mj-key', models: mjModels });
    mjSpare = await world.addChannel({ name: 'mj-spare', type: 5, key: 'mj-key', models: mjModels });
    sunoChannel = await world.addChannel({ name: 'suno', type: 36, key: 'suno-key', models: 'suno_music,suno_lyrics' });
    // Images through this server, and the proxy's callbacks to it.
    await world.setOption('ServerAddress', world.baseUrl);
    await waitFor(
      async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.ServerAddress === world.baseUrl,
      10_000,
      'server address',
    );
    const created = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'limited', unlimited_quota: false, remain_quota: 1_000_000 } })
    ).json();
    limitedKey = created.data[0].key;
    limitedId = created.data[0].id;
    await waitFor(async () => (await call('POST', '/mj/submit/imagine', {}, limitedKey)).status === 400, 10_000, 'routes');
  });

  afterAll(async () => {
    await relayDb?.destroy();
    await billing?.destroy();
    await world?.close();
  });

  it('draws: imagine charged once, progress to success, the image through the relay, an upscale on the same channel', async () => {
    const before = await world.balance();
    const submit = await call('POST', '/mj/submit/imagine', { prompt: 'a red fox --mock tasksteps=2' });
    expect(submit.status).toBe(200);
    expect(submit.body).toMatchObject({ code: 1 });
    const id = submit.body.result as string;
    const log = await world.usageLog(submit.requestId);
    expect(log).toMatchObject({ model_name: 'mj_imagine', quota: PRICE.mj_imagine });
    await waitFor(async () => (await world.balance()) === before - PRICE.mj_imagine, 10_000, 'charged');

    // The poller moves it: some progress on the way, then success with the image and its buttons.
    let seenProgress = false;
    await waitFor(
      async () => {
        const task = await fetchTask(id);
        if (task.status === 'IN_PROGRESS' && task.progress !== '0%') seenProgress = true;
        return task.status === 'SUCCESS';
      },
      30_000,
      'success',
    );
    expect(seenProgress).toBe(true);
    const done = await fetchTask(id);
    expect(done).toMatchObject({ id, action: 'IMAGINE', status: 'SUCCESS', progress: '100%', prompt: 'a red fox --mock tasksteps=2' });
    expect(done.imageUrl).toMatch(new RegExp(`^${world.baseUrl}/mj/image/${id}\\?sig=[\\w-]{32}$`));
    const image = await fetch(done.imageUrl as string);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    // Only at the address handed out: task ids are guessable.
    expect((await fetch(`${world.baseUrl}/mj/image/${id}`)).status).toBe(404);
    expect((await fetch(`${world.baseUrl}/mj/image/${id}?sig=${'A'.repeat(32)}`)).status).toBe(404);
    // The console's list shows the same proxied image.
    const inList = (await world.gateway.call('GET', `/api/mj/self?mj_id=${id}`, { session: world.user })).json().data.items[0];
    expect(`${world.baseUrl}${inList.image_url}`).toBe(done.imageUrl);

    // A follow-up with a button of the finished task: charged at its own price, on the original's channel only.
    const original = await row('midjourney', id);
    const buttons = done.buttons as Array<{ customId: string; label: string }>;
    const u1 = buttons.find((button) => button.label === 'U1')!;
    const upscale = await call('POST', '/mj/submit/action', { taskId: id, customId: u1.customId });
    expect(upscale.body).toMatchObject({ code: 1 });
    const upscaleLog = await world.usageLog(upscale.requestId);
    expect(upscaleLog).toMatchObject({ model_name: 'mj_upscale', quota: PRICE.mj_upscale, channel_id: original.channel_id });
    const upscaled = await untilStatus(upscale.body.result as string, 'SUCCESS');
    expect(upscaled.action).toBe('UPSCALE');
    expect((await row('midjourney', upscale.body.result as string)).channel_id).toBe(original.channel_id);

    // Both listed by the batch fetch, in the order asked.
    const listed = await call('POST', '/mj/task/list-by-condition', { ids: [upscale.body.result, id, 'unknown'] });
    expect((listed.body as unknown as Json[]).map((task) => task.id)).toEqual([upscale.body.result, id]);
    // The same under a mode prefix.
    expect((await call('GET', `/mj-fast/mj/task/${id}/fetch`)).body.status).toBe('SUCCESS');
    // And the upstream's seed of the finished image, not billed.
    const seed = await call('GET', `/mj/task/${id}/image-seed`);
    expect(seed.body).toMatchObject({ code: 1 });
  });

  it('refunds a failed drawing exactly once, to the user and to the API key', async () => {
    const before = await world.balance();
    const remainBefore = await tokenRemain();
    const submit = await call('POST', '/mj/submit/imagine', { prompt: 'a storm --mock tasksteps=1;taskfail=3' }, limitedKey);
    expect(submit.body).toMatchObject({ code: 1 });
    const id = submit.body.result as string;
    await waitFor(async () => (await tokenRemain()) === remainBefore - PRICE.mj_imagine, 10_000, 'key charged');
    const failed = await untilStatus(id, 'FAILURE', limitedKey);
    expect(failed.failReason).toContain('taskfail');
    const task = await row('midjourney', id);
    await waitFor(async () => (await world.balance()) === before && (await tokenRemain()) === remainBefore, 15_000, 'refunded');
    await waitFor(async () => (await row('midjourney', id)).refunded, 10_000, 'marked refunded');
    // Runs that start two seconds later still see it failed: still one refund.
    const after = Math.floor(Date.now() / 1000) + 2;
    await waitFor(async () => ((await pollRun())?.started_at ?? 0) >= after, 15_000, 'later poll runs');
    expect(await refundsOf(task.id)).toBe(1);
    expect(await world.balance()).toBe(before);
    const refundLog = await billing.getRepository(LogEntity).findOneByOrFail({ request_id: `task-refund-${task.id}` });
    expect(refundLog).toMatchObject({ type: 4, quota: PRICE.mj_imagine });
    expect(refundLog.content).toContain(id);
  });

  it('fails and refunds a task that never finishes once TASK_TIMEOUT_MINUTES passed', async () => {
    const before = await world.balance();
    const submit = await call('POST', '/mj/submit/imagine', { prompt: 'a slow river --mock tasksteps=1;taskstuck' });
    const id = submit.body.result as string;
    await untilStatus(id, 'IN_PROGRESS');
    // The task is an hour and a minute old: the next run gives up on it.
    const task = await row('midjourney', id);
    await relayDb.getRepository(TaskEntity).update({ id: task.id }, { submit_time: Date.now() - 61 * 60_000 });
    const failed = await untilStatus(id, 'FAILURE');
    expect(failed.failReason).toBe('the upstream task did not finish within 60 minutes');
    await waitFor(async () => (await world.balance()) === before, 15_000, 'refunded');
    expect(await refundsOf(task.id)).toBe(1);
  });

  it('makes music and lyrics, and refunds a song that fails', async () => {
    const before = await world.balance();
    const music = await call('POST', '/suno/submit/music', { prompt: 'la la --mock tasksteps=1', mv: 'chirp-v3-5', title: 'Mock', tags: 'pop' });
    expect(music.status).toBe(200);
    expect(music.body).toMatchObject({ code: 'success' });
    const musicId = music.body.data as string;
    const lyrics = await call('POST', '/suno/submit/lyrics', { prompt: 'a song about foxes --mock tasksteps=1' });
    const lyricsId = lyrics.body.data as string;
    const failing = await call('POST', '/suno/submit/music', { prompt: 'off key --mock tasksteps=2;taskfail=4' });
    const failingId = failing.body.data as string;
    expect((await world.usageLog(music.requestId)).quota).toBe(PRICE.suno_music);
    expect((await world.usageLog(lyrics.requestId)).quota).toBe(PRICE.suno_lyrics);

    await waitFor(
      async () => {
        const listed = await call('POST', '/suno/fetch', { ids: [musicId, lyricsId, failingId] });
        const statuses = (listed.body.data as Json[]).map((task) => task.status);
        return statuses.join() === 'SUCCESS,SUCCESS,FAILURE';
      },
      30_000,
      'suno tasks done',
    );
    const song = (await call('GET', `/suno/fetch/${musicId}`)).body.data as Json;
    const clips = song.data as Array<{ audio_url: string; status: string }>;
    expect(clips).toHaveLength(2);
    expect(clips[0]).toMatchObject({ status: 'complete' });
    expect(clips[0]!.audio_url).toMatch(/\.mp3$/);
    const words = (await call('GET', `/suno/fetch/${lyricsId}`)).body.data as Json;
    expect((words.data as Json).text).toContain('hello hello hello');
    // The failed song's charge came back; the others stay charged.
    await waitFor(async () => (await world.balance()) === before - PRICE.suno_music - PRICE.suno_lyrics, 15_000, 'song refunded');
    expect(await refundsOf((await row('suno', failingId)).id)).toBe(1);
    // A continuation runs on the original's channel.
    const more = await call('POST', '/suno/submit/music', { prompt: 'more la --mock tasksteps=1', task_id: musicId, continue_clip_id: 'x', continue_at: 60 });
    expect(more.body).toMatchObject({ code: 'success' });
    expect((await world.usageLog(more.requestId)).channel_id).toBe(sunoChannel);
  });

  it('charges nothing for a refused submit and answers with the upstream description', async () => {
    const before = await world.balance();
    const banned = await call('POST', '/mj/submit/imagine', { prompt: 'forbidden --mock mjcode=24' });
    expect(banned.status).toBe(400);
    expect(banned.body).toMatchObject({ code: 24, description: '可能包含敏感词', type: 'upstream_error' });
    expect(await world.usageLog(banned.requestId)).toMatchObject({ quota: 0 });
    const full = await call('POST', '/mj/submit/imagine', { prompt: 'busy --mock mjcode=23' });
    expect(full.body).toMatchObject({ code: 23 });
    expect(await world.usageLog(full.requestId)).toMatchObject({ quota: 0 });
    expect(await world.balance()).toBe(before);
  });

  it("refuses bad input, unknown actions and other users' tasks before any upstream call", async () => {
    const since = Date.now();
    const submits = () =>
      world.mock.requests.filter((entry) => entry.time >= since && (entry.path.startsWith('/mj/submit') || entry.path.startsWith('/suno/submit'))).length;
    const noPrompt = await call('POST', '/mj/submit/imagine', { prompt: '' });
    expect(noPrompt.status).toBe(400);
    expect(noPrompt.body).toMatchObject({ error: { param: 'prompt' } });
    const unknown = await call('POST', '/mj/submit/change', { taskId: '1', action: 'PAINT', index: 1 });
    expect(unknown.status).toBe(400);
    expect((unknown.body.error as Json).message).toContain('PAINT');
    const badButton = await call('POST', '/mj/submit/action', { taskId: '1', customId: 'MJ::Nope::1' });
    expect(badButton.body).toMatchObject({ error: { param: 'customId' } });
    expect((await call('POST', '/suno/submit/video', { prompt: 'x' })).status).toBe(400);

    // Someone else's task is not found, for fetches and follow-ups alike.
    const mine = await call('POST', '/mj/submit/imagine', { prompt: 'mine --mock tasksteps=1' });
    const id = mine.body.result as string;
    await world.gateway.register('mallory', 'mallory-pass');
    const mallory = await world.gateway.login('mallory', 'mallory-pass');
    await world.gateway.call('PUT', '/api/user/', { session: world.root, body: { id: mallory.id, quota: 10_000_000 } });
    const token = (await world.gateway.call('POST', '/api/token/', { session: mallory, body: { name: 'm', unlimited_quota: true } })).json().data[0];
    expect((await call('GET', `/mj/task/${id}/fetch`, undefined, token.key)).status).toBe(404);
    await untilStatus(id, 'SUCCESS');
    const stolen = await call('POST', '/mj/submit/change', { taskId: id, action: 'UPSCALE', index: 1 }, token.key);
    expect(stolen.status).toBe(404);
    expect((await call('POST', '/mj/task/list-by-condition', { ids: [id] }, token.key)).body).toEqual([]);

    // A key without enough quota left is refused before the upstream is called.
    const poor = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'poor', unlimited_quota: false, remain_quota: 1_000 } })
    ).json().data[0];
    const short = await call('POST', '/mj/submit/imagine', { prompt: 'too dear' }, poor.key);
    expect(short.status).toBe(403);
    expect(short.body).toMatchObject({ error: { code: 'insufficient_token_quota' } });
    expect(submits()).toBe(1); // only "mine"
  });

  it('tries another channel when one is down or has no account, and disables the one without an account', async () => {
    await world.setOption('AutomaticDisableChannelEnabled', true);
    await world.setOption('RetryTimes', 2);
    const dead = await world.addChannel({ name: 'mj-dead', type: 2, key: 'mj-key', base_url: 'http://127.0.0.1:1', models: 'mj_describe', priority: 10 });
    const broke = await world.addChannel({ name: 'mj-broke', type: 2, key: 'mj-key', base_url: world.mock.url, models: 'mj_shorten', priority: 10 });
    await world.gateway.call('PUT', '/api/channel/', { session: world.root, body: { id: mjSpare, priority: 5 } });
    await waitFor(async () => (await call('POST', '/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' })).status === 200, 15_000, 'describe served');
    const described = await call('POST', '/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' });
    expect(described.body).toMatchObject({ code: 1 });
    expect((await world.usageLog(described.requestId)).channel_id).not.toBe(dead);

    // Code 3 on the broke channel (its key's options), then a good one takes it.
    world.mock.keys['mj-key-broke'] = 'mjcode=3';
    await world.gateway.call('PUT', '/api/channel/', { session: world.root, body: { id: broke, key: 'mj-key-broke' } });
    await waitFor(async () => (await call('POST', '/mj/submit/shorten', { prompt: 'a very long prompt' })).status === 200, 15_000, 'shorten served');
    await waitFor(
      async () => (await world.gateway.call('GET', `/api/channel/${broke}`, { session: world.root })).json().data.status === 3,
      15_000,
      'broke channel disabled',
    );
  });

  it('accepts the notify callback only with the channel secret', async () => {
    const forged = await call('POST', `/mj/notify/${mjChannel}/not-the-secret`, { id: '1', status: 'SUCCESS' });
    expect(forged.status).toBe(403);
    const unknown = await call('POST', `/mj/notify/99999/whatever`, { id: '1' });
    expect(unknown.status).toBe(403);
  });

  it('charges a modal onto the inpaint it confirms, so a refund would give back all of it', async () => {
    const imagine = await call('POST', '/mj/submit/imagine', { prompt: 'a garden --mock tasksteps=1' });
    const imagined = await untilStatus(imagine.body.result as string, 'SUCCESS');
    const u2 = (imagined.buttons as Array<{ customId: string; label: string }>).find((button) => button.label === 'U2')!;
    const upscale = await call('POST', '/mj/submit/action', { taskId: imagine.body.result, customId: u2.customId });
    const upscaled = await untilStatus(upscale.body.result as string, 'SUCCESS');
    const region = (upscaled.buttons as Array<{ customId: string }>).find((button) => button.customId.startsWith('MJ::Inpaint::'))!;
    // Vary (Region) is free and waits for its modal (code 21 from the proxy).
    const inpaint = await call('POST', '/mj/submit/action', { taskId: upscale.body.result, customId: region.customId });
    expect(inpaint.body).toMatchObject({ code: 21 });
    const inpaintId = inpaint.body.result as string;
    expect(await world.usageLog(inpaint.requestId)).toMatchObject({ model_name: 'mj_inpaint', quota: 0 });
    const modal = await call('POST', '/mj/submit/modal', { taskId: inpaintId, prompt: 'a pond', maskBase64: 'AAAA' });
    expect(modal.body).toMatchObject({ code: 1, result: inpaintId });
    expect(await world.usageLog(modal.requestId)).toMatchObject({ model_name: 'mj_modal', quota: 50_000 });
    const task = await row('midjourney', inpaintId);
    expect(task).toMatchObject({ action: 'INPAINT', quota: 50_000 });
    await untilStatus(inpaintId, 'SUCCESS');
  });

  it('applies the MJ options to what goes upstream', async () => {
    const submitted = () => world.mock.requests.filter((entry) => entry.path === '/mj/submit/imagine').at(-1)!.body as Json;
    const body = { prompt: 'a cat --fast --mock tasksteps=1', accountFilter: { instanceId: 'x' }, notifyHook: 'https://client.example/hook' };
    await call('POST', '/mj/submit/imagine', body);
    // Defaults: mode flags kept, the account filter and the client's hook dropped; the relay's own callback instead.
    const first = submitted();
    expect(first.prompt).toBe('a cat --fast --mock tasksteps=1');
    expect(first).not.toHaveProperty('accountFilter');
    expect(first.notifyHook).toMatch(new RegExp(`^${world.baseUrl}/mj/notify/\\d+/[\\w-]{32}$`));
    for (const key of ['MjModeClearEnabled', 'MjAccountFilterEnabled', 'MjNotifyEnabled']) await world.setOption(key, true);
    await waitFor(
      async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.MjNotifyEnabled === true,
      10_000,
      'MJ options',
    );
    await call('POST', '/mj/submit/imagine', body);
    expect(submitted()).toMatchObject({ prompt: 'a cat --mock tasksteps=1', accountFilter: { instanceId: 'x' }, notifyHook: 'https://client.example/hook' });
    for (const key of ['MjModeClearEnabled', 'MjAccountFilterEnabled', 'MjNotifyEnabled']) await world.setOption(key, false);
  });

  it('asks the upstream at once when the channel notifies, and trusts nothing else of the callback', async () => {
    const submit = await call('POST', '/mj/submit/imagine', { prompt: 'a lark --mock tasksteps=40' });
    const id = submit.body.result as string;
    const task = await row('midjourney', id);
    const channelKey = 'mj-key';
    const started = Date.now();
    // The callback claims success; the relay asks the upstream, which says otherwise.
    const notified = await call('POST', `/mj/notify/${task.channel_id}/${notifySecret(task.channel_id, channelKey)}`, {
      id,
      status: 'SUCCESS',
      progress: '100%',
    });
    expect(notified.status).toBe(200);
    const asked = world.mock.requests.filter(
      (entry) => entry.time >= started && entry.path === '/mj/task/list-by-condition' && JSON.stringify((entry.body as Json).ids) === JSON.stringify([id]),
    );
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect((await fetchTask(id)).status).not.toBe('SUCCESS');
  });

  it('never fails a task because its upstream does not answer a poll', async () => {
    const submit = await call('POST', '/mj/submit/imagine', { prompt: 'a heron --mock tasksteps=1' });
    const id = submit.body.result as string;
    const channelKey = 'mj-key';
    // The proxy answers every call with a 500 for a while: several runs pass, the task stays as it was.
    world.mock.keys[channelKey] = 'status=500';
    const after = Math.floor(Date.now() / 1000) + 2;
    await waitFor(async () => ((await pollRun())?.started_at ?? 0) >= after, 15_000, 'runs while the upstream is down');
    const during = await row('midjourney', id);
    expect(['SUBMITTED', 'NOT_START']).toContain(during.status);
    expect(during.fail_reason).toBe('');
    delete world.mock.keys[channelKey];
    await untilStatus(id, 'SUCCESS');
  });

  it("counts a submit against the key's usage limits: past its RPM a submit is refused with 429 and reaches no upstream", async () => {
    const created = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'mj-limited', unlimited_quota: true, rate_limits: { rpm: 1 } } })
    ).json();
    const key = created.data[0].key as string;
    const since = Date.now();
    const first = await call('POST', '/mj/submit/imagine', { prompt: 'one heron --mock tasksteps=1' }, key);
    expect(first.status).toBe(200);
    const second = await call('POST', '/mj/submit/imagine', { prompt: 'two herons' }, key);
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    const submits = world.mock.requests.filter((entry) => entry.time >= since && entry.path === '/mj/submit/imagine');
    expect(submits).toHaveLength(1);
  });

  it('keeps every balance equal to its ledger', async () => {
    expect(await reconcile(billing)).toEqual([]);
  });
});
