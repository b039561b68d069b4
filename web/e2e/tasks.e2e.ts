import type { Locator, Page } from 'playwright-core';
import { startMockUpstream, type MockUpstream } from '../../tools/mock-upstream/server.mjs';
import { register, signIn } from './support/api-client';
import { newContext, screenshot } from './support/browser';
import { loginThroughForm, watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';
import { eventually } from './support/wait';

// Midjourney drawings and Suno music end to end: root adds a Midjourney and a Suno channel to
// the mock upstream, a user submits through the relay with an API key, the relay's poller (every
// second here) follows the tasks to their end, and the console's /midjourney and /task screens
// show what they made: the drawing through this server's image proxy, the failure's reason, the
// song's audio.

jest.setTimeout(180_000);

const USER = 'mira';
const PASSWORD = 'mira-password1';
const SONG_TITLE = 'Fox song';
/** The relay's final states; everything else is still moving. */
const FINAL = ['SUCCESS', 'FAILURE'];

interface DrawingAnswer {
  id: string;
  status: string;
  progress: string;
  failReason: string;
  imageUrl: string;
}
interface SunoClip {
  id: string;
  title: string;
  audio_url: string;
}
interface SunoTask {
  task_id: string;
  status: string;
  data: SunoClip[] | { title: string; text: string } | null;
}

const harness = useConsoleHarness(undefined, { env: { TASK_POLL_INTERVAL_MS: '1000' } });
let mock: MockUpstream;
let apiKey = '';
/** The three tasks once final, as the relay's own fetch endpoints answer them. */
let drawn: DrawingAnswer;
let failed: DrawingAnswer;
let song: SunoTask;
let lyrics: SunoTask;

/** A relay call with the user's API key; the answer's JSON (null for an empty body). */
async function relay<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${harness.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

const fetchDrawing = async (id: string) => (await relay<DrawingAnswer>('GET', `/mj/task/${encodeURIComponent(id)}/fetch`)).body;
const fetchSuno = async (ids: string[]) => (await relay<{ data: SunoTask[] }>('POST', '/suno/fetch', { ids })).body.data;
/** Wide enough for every column of both tables (they scroll sideways below that), so the screenshots show them all. */
const VIEWPORT = { width: 2200, height: 800 };
const tableRow = (page: Page, text: string): Locator => page.locator('tr.ant-table-row').filter({ has: page.getByText(text, { exact: true }) });

/** The sign-in toast, out of the way of the screenshots. */
async function signedInToastGone(page: Page): Promise<void> {
  await page.locator('.ant-message-notice').first().waitFor({ state: 'detached', timeout: 10_000 });
}

beforeAll(async () => {
  mock = await startMockUpstream();
  const { server } = harness;
  const root = await signIn(server.url, 'root', '123456');
  const setOption = (key: string, value: string) => root.call('PUT', '/api/option/', { key, value });
  // The mock listens on loopback, which the egress guard refuses unless root allows it (rule R1);
  // a channel takes this default when it is created, so it comes first.
  await setOption('AllowPrivateNetworkUpstreams', 'true');
  // The side menu's drawing and task entries (/api/status enable_drawing, enable_task).
  await setOption('DrawingEnabled', 'true');
  await setOption('TaskEnabled', 'true');
  await setOption('QuotaForNewUser', '1000000');
  const status = await (await fetch(`${server.url}/api/status`)).json();
  expect(status.data).toMatchObject({ enable_drawing: true, enable_task: true });

  const base = { key: 'sk-mock-upstream-key', base_url: mock.url, group: 'default' };
  await root.call('POST', '/api/channel/', { ...base, name: 'mock midjourney', type: 2, models: 'mj_imagine' });
  await root.call('POST', '/api/channel/', { ...base, name: 'mock suno', type: 36, models: 'suno_music,suno_lyrics' });

  await register(server.url, USER, PASSWORD);
  const user = await signIn(server.url, USER, PASSWORD);
  await eventually(
    async () => (await user.call<{ quota: number }>('GET', '/api/user/self')).quota,
    (quota) => quota === 1_000_000,
    10_000,
    'the new-user quota',
  );
  const created = await user.call<Array<{ key: string }>>('POST', '/api/token/', { name: 'tasks e2e', unlimited_quota: true });
  const key = created[0]!.key;
  apiKey = key.startsWith('sk-') ? key : `sk-${key}`;

  // The relay learns channels from events: wait until it routes both platforms' models.
  await eventually(
    async () => ((await relay<{ data?: Array<{ id: string }> }>('GET', '/v1/models')).body.data ?? []).map((model) => model.id),
    (models) => ['mj_imagine', 'suno_music', 'suno_lyrics'].every((model) => models.includes(model)),
    15_000,
    'the task models routable',
  );

  const imagine = await relay<{ code: number; result: string }>('POST', '/mj/submit/imagine', { prompt: 'a red fox in the snow --mock tasksteps=1' });
  const failing = await relay<{ code: number; result: string }>('POST', '/mj/submit/imagine', { prompt: 'a storm at sea --mock tasksteps=1;taskfail=3' });
  const music = await relay<{ code: string; data: string }>('POST', '/suno/submit/music', {
    prompt: 'a song about foxes --mock tasksteps=1',
    mv: 'chirp-v3-5',
    title: SONG_TITLE,
    tags: 'folk',
  });
  const lyric = await relay<{ code: string; data: string }>('POST', '/suno/submit/lyrics', { prompt: 'foxes at night --mock tasksteps=1' });
  for (const submit of [imagine, failing]) expect(submit).toMatchObject({ status: 200, body: { code: 1 } });
  for (const submit of [music, lyric]) expect(submit).toMatchObject({ status: 200, body: { code: 'success' } });

  // The poller asks the mock once a second; each poll moves a task one step.
  const untilFinal = (id: string) =>
    eventually(
      () => fetchDrawing(id),
      (task) => FINAL.includes(task.status),
      60_000,
      `drawing ${id} final`,
    );
  [drawn, failed] = await Promise.all([untilFinal(imagine.body.result), untilFinal(failing.body.result)]);
  const sunoTasks = await eventually(
    () => fetchSuno([music.body.data, lyric.body.data]),
    (tasks) => tasks.length === 2 && tasks.every((task) => FINAL.includes(task.status)),
    60_000,
    'the Suno tasks final',
  );
  const sunoTask = (id: string) => sunoTasks.find((task) => task.task_id === id) ?? { task_id: id, status: 'missing', data: null };
  song = sunoTask(music.body.data);
  lyrics = sunoTask(lyric.body.data);
  expect(drawn).toMatchObject({ status: 'SUCCESS', progress: '100%' });
  expect(failed.status).toBe('FAILURE');
  expect(failed.failReason).not.toBe('');
  expect(song.status).toBe('SUCCESS');
  expect(lyrics.status).toBe('SUCCESS');
});
afterAll(async () => {
  await mock?.close();
});

describe('drawing and music tasks in the console', () => {
  it('/midjourney shows the finished drawing through the image proxy, previews it, and shows why the other failed', async () => {
    const context = await newContext(harness.browser, harness.server.url, { viewport: VIEWPORT });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, USER, PASSWORD);
    await signedInToastGone(page);
    // The side menu offers the screen (DrawingEnabled).
    await page.getByRole('menuitem', { name: '绘图' }).click();
    await page.waitForURL((url) => url.pathname === '/midjourney');

    const done = tableRow(page, drawn.id);
    await done.waitFor();
    for (const text of ['绘图', '已提交', '成功']) await done.getByText(text, { exact: true }).waitFor();
    expect(await done.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    const thumbnail = done.getByAltText('结果图片');
    await thumbnail.waitFor();
    // Loaded from this server's proxy (/mj/image/<id>), which fetched the mock's 1x1 PNG.
    const source = new URL((await thumbnail.getAttribute('src'))!);
    expect(source.origin).toBe(harness.server.url);
    expect(source.pathname).toBe(`/mj/image/${drawn.id}`);
    await page.waitForFunction((image) => image instanceof HTMLImageElement && image.complete && image.naturalWidth > 0, await thumbnail.elementHandle(), {
      timeout: 15_000,
    });
    expect(await done.getByRole('link', { name: '打开' }).getAttribute('href')).toBe(source.href);

    const broken = tableRow(page, failed.id);
    await broken.getByText('失败', { exact: true }).waitFor();
    await broken.getByText(failed.failReason).waitFor();
    expect(await broken.getByAltText('结果图片').count()).toBe(0);
    await screenshot(page, 'drawing-tasks');

    // A click on the thumbnail opens antd's preview of the same image.
    await done.locator('.ant-image').click();
    const preview = page.locator('.ant-image-preview img');
    await preview.waitFor();
    expect(await preview.getAttribute('src')).toBe(source.href);
    expect(await preview.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);
    await screenshot(page, 'drawing-preview');
    await page.keyboard.press('Escape');
    await preview.waitFor({ state: 'detached' });

    expect(errors).toEqual([]);
    await context.close();
  });

  it("/task shows the song's clips with links to their audio, and the lyrics", async () => {
    const clips = song.data as SunoClip[];
    expect(clips.length).toBeGreaterThan(0);
    const context = await newContext(harness.browser, harness.server.url, { viewport: VIEWPORT });
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, USER, PASSWORD);
    await signedInToastGone(page);
    await page.getByRole('menuitem', { name: '异步任务' }).click();
    await page.waitForURL((url) => url.pathname === '/task');

    const music = tableRow(page, song.task_id);
    await music.waitFor();
    for (const text of ['Suno', '音乐', '成功']) await music.getByText(text, { exact: true }).waitFor();
    expect(await music.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    const links = music.getByRole('link', { name: `${SONG_TITLE} 的音频` });
    await links.first().waitFor();
    expect(await links.evaluateAll((anchors: HTMLAnchorElement[]) => anchors.map((anchor) => anchor.href))).toEqual(clips.map((clip) => clip.audio_url));
    expect(await links.first().getAttribute('target')).toBe('_blank');
    // The mock's songs last 120 s.
    expect(await music.getByText('2:00', { exact: true }).count()).toBe(clips.length);

    const written = tableRow(page, lyrics.task_id);
    await written.getByText('歌词', { exact: true }).waitFor();
    const text = (lyrics.data as { text: string }).text;
    expect(text).not.toBe('');
    // Clipped to three lines at first, the whole text once expanded.
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const paragraph = written.locator('div.ant-typography');
    await paragraph.getByText(lines[0]!, { exact: false }).waitFor();
    // A line past the third (the mock's "[Chorus]") is hidden until then.
    const hidden = lines.slice(3).find((line) => !lines.slice(0, 3).includes(line));
    expect(hidden).toBeDefined();
    expect(await paragraph.innerText()).not.toContain(hidden);
    await screenshot(page, 'music-tasks');
    await written.getByRole('button', { name: '展开' }).click();
    await written.getByRole('button', { name: '收起' }).waitFor();
    const whole = await paragraph.innerText();
    for (const line of lines) expect(whole).toContain(line);

    // The link really leads to the song (the mock's file).
    const audio = await fetch(clips[0]!.audio_url);
    expect(audio.status).toBe(200);

    expect(errors).toEqual([]);
    await context.close();
  });
});
