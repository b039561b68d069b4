import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import dayjs from 'dayjs';
import { Role, type AsyncTask, type DrawingTask } from '@aigw/contracts';
import { progressPercent, safeWebUrl, taskSeconds } from '../src/features/tasks/cells';
import { DrawingPage } from '../src/features/tasks/DrawingPage';
import { TasksPage } from '../src/features/tasks/TasksPage';
import { defaultDrawingWindow, defaultTaskWindow } from '../src/features/logs/time';
import type { RecordedCall } from './fake-api';
import { makeUser, renderPage, setupFakeApi } from './render';

const admin = makeUser({ id: 1, username: 'root', role: Role.Admin });
const user = makeUser({ id: 2, username: 'alice' });

// Role queries compute accessible names over the whole antd tree and take seconds: these read the DOM directly.
const headers = () => [...document.querySelectorAll('thead th')].map((cell) => cell.textContent);
const searchButton = () => screen.getByText('查询').closest('button')!;

const fake = setupFakeApi();

const query = (call: RecordedCall) => Object.fromEntries(call.query);
const lastQuery = (path: string) => query(fake.callsTo('GET', path).at(-1)!);
const page = <T,>(items: T[]) => ({ items, total: items.length, page: 1, page_size: 10 });
const rowOf = (text: string) => within(screen.getByText(text).closest('tr')!);
const tagClass = (element: HTMLElement) => element.closest('.ant-tag')!.className;
const submitted = 1_715_000_000;

function drawing(overrides: Partial<DrawingTask> = {}): DrawingTask {
  return {
    submit_time: submitted,
    finish_time: submitted + 30,
    channel_id: 4,
    action: 'IMAGINE',
    mj_id: 'mj-1',
    code: 1,
    status: 'SUCCESS',
    progress: '100%',
    image_url: 'https://cdn.example.com/a.png',
    prompt: 'a cat',
    prompt_en: 'a cat, english',
    fail_reason: '',
    ...overrides,
  };
}

function task(overrides: Partial<AsyncTask> = {}): AsyncTask {
  return {
    submit_time: submitted,
    finish_time: submitted + 90,
    progress: '100%',
    channel_id: 7,
    platform: 'suno',
    action: 'MUSIC',
    task_id: 'task-1',
    status: 'SUCCESS',
    fail_reason: '',
    ...overrides,
  };
}

describe('task rules', () => {
  it('opens drawing 30 days back and tasks at midnight, both ending an hour ahead', () => {
    const now = new Date(2025, 4, 7, 15, 30).getTime();
    expect(defaultDrawingWindow(now)).toEqual({ start: now - 30 * 86_400_000, end: now + 3_600_000 });
    expect(defaultTaskWindow(now)).toEqual({ start: new Date(2025, 4, 7).getTime(), end: now + 3_600_000 });
  });

  it('measures durations in seconds or milliseconds, reads progress, and only links web images', () => {
    expect(taskSeconds(submitted, submitted + 61)).toBe(61);
    expect(taskSeconds(submitted * 1000, submitted * 1000 + 1500)).toBe(1.5);
    expect(taskSeconds(submitted, 0)).toBeNull();
    expect(progressPercent('45%')).toBe(45);
    expect(progressPercent('')).toBe(0);
    expect(progressPercent(130)).toBe(100);
    expect(safeWebUrl('javascript:alert(1)')).toBeNull();
    expect(safeWebUrl('not a url')).toBeNull();
    expect(safeWebUrl('https://x.test/a.png')).toBe('https://x.test/a.png');
  });
});

describe('drawing screen', () => {
  it('reads /api/mj/self with the default window, hides the channel for users', async () => {
    fake.ok('GET', '/api/mj/self', page([drawing()]));
    renderPage(<DrawingPage />, { route: '/midjourney', user });
    await screen.findByText('mj-1');
    const params = lastQuery('/api/mj/self');
    expect(params).toMatchObject({ p: '1', page_size: '10', mj_id: '' });
    expect(params).not.toHaveProperty('channel_id');
    const now = Date.now() / 1000;
    expect(Number(params.end_timestamp) - Number(params.start_timestamp)).toBe(30 * 86_400 + 3600);
    expect(Number(params.end_timestamp)).toBeGreaterThan(now + 3500);
    expect(screen.queryByPlaceholderText('渠道 ID')).not.toBeInTheDocument();
    expect(headers()).not.toContain('渠道');
    for (const title of ['提交时间', '花费时间', '类型', '任务ID', '提交结果', '任务状态', '进度', '结果图片', 'Prompt', 'PromptEn', '失败原因']) {
      expect(headers()).toContain(title);
    }
    expect(fake.unexpected).toEqual([]);
  });

  it('labels actions, submit results and statuses, and colours durations over 60 s red', async () => {
    fake.ok(
      'GET',
      '/api/mj/',
      page([
        drawing({ mj_id: 'd-ok', finish_time: submitted + 60 }),
        drawing({
          mj_id: 'd-slow',
          action: 'UPSCALE',
          code: 21,
          status: 'IN_PROGRESS',
          progress: '45%',
          finish_time: submitted + 61,
          image_url: '',
          prompt: '',
        }),
        drawing({ mj_id: 'd-dup', action: 'SWAP_FACE', code: 22, status: 'FAILURE', fail_reason: 'banned prompt', finish_time: 0 }),
        drawing({ mj_id: 'd-not', action: 'BLEND', code: 0, status: 'MODAL' }),
        drawing({ mj_id: 'd-odd', action: 'SOMETHING', code: 99, status: 'WEIRD' }),
        drawing({ mj_id: 'd-queue', action: 'DESCRIBE', status: 'SUBMITTED' }),
        drawing({ mj_id: 'd-new', action: 'INPAINT', status: 'NOT_START' }),
      ]),
    );
    renderPage(<DrawingPage />, { route: '/midjourney', user: admin });
    await screen.findByText('d-ok');
    expect(headers()).toContain('渠道');

    const ok = rowOf('d-ok');
    expect(ok.getByText('绘图')).toBeInTheDocument();
    expect(ok.getByText('已提交')).toBeInTheDocument();
    expect(ok.getByText('成功')).toBeInTheDocument();
    expect(ok.getByText('4')).toBeInTheDocument();
    expect(tagClass(ok.getByText('60 秒'))).toContain('ant-tag-green');
    expect(ok.getByText('a cat')).toBeInTheDocument();
    expect(ok.getByText('a cat, english')).toBeInTheDocument();
    expect(ok.getByAltText('结果图片')).toHaveAttribute('src', 'https://cdn.example.com/a.png');
    expect(ok.getByText('打开').closest('a')).toHaveAttribute('href', 'https://cdn.example.com/a.png');
    expect(ok.getByText('打开').closest('a')).toHaveAttribute('target', '_blank');

    const slow = rowOf('d-slow');
    expect(tagClass(slow.getByText('61 秒'))).toContain('ant-tag-red');
    expect(slow.getByText('放大')).toBeInTheDocument();
    expect(slow.getByText('等待中')).toBeInTheDocument();
    expect(slow.getByText('执行中')).toBeInTheDocument();
    expect(slow.getByText('45%')).toBeInTheDocument();
    expect(slow.queryByText('打开')).not.toBeInTheDocument();

    const dup = rowOf('d-dup');
    expect(dup.getByText('换脸')).toBeInTheDocument();
    expect(dup.getByText('重复提交')).toBeInTheDocument();
    expect(dup.getByText('失败')).toBeInTheDocument();
    expect(dup.getByText('banned prompt')).toBeInTheDocument();
    expect(dup.getByText('-')).toBeInTheDocument();

    expect(rowOf('d-not').getByText('图混合')).toBeInTheDocument();
    expect(rowOf('d-not').getByText('未提交')).toBeInTheDocument();
    expect(rowOf('d-not').getByText('窗口等待')).toBeInTheDocument();
    expect(rowOf('d-odd').getAllByText('未知')).toHaveLength(3);
    expect(rowOf('d-queue').getByText('图生文')).toBeInTheDocument();
    expect(rowOf('d-queue').getByText('队列中')).toBeInTheDocument();
    expect(rowOf('d-new').getByText('局部重绘-提交')).toBeInTheDocument();
    expect(rowOf('d-new').getByText('未启动')).toBeInTheDocument();
  });

  it('sends the admin filters: channel id and task id', async () => {
    fake.ok('GET', '/api/mj/', page([drawing()]));
    renderPage(<DrawingPage />, { route: '/midjourney', user: admin });
    await screen.findByText('mj-1');
    expect(lastQuery('/api/mj/')).toMatchObject({ channel_id: '', mj_id: '' });
    fireEvent.change(screen.getByPlaceholderText('渠道 ID'), { target: { value: '4' } });
    fireEvent.change(screen.getByPlaceholderText('任务 ID'), { target: { value: ' mj-1 ' } });
    await userEvent.click(searchButton());
    await waitFor(() => expect(lastQuery('/api/mj/')).toMatchObject({ channel_id: '4', mj_id: 'mj-1', p: '1' }));
    expect(fake.unexpected).toEqual([]);
  });

  it('refuses a channel id that is not a number', async () => {
    fake.ok('GET', '/api/mj/', page([drawing()]));
    renderPage(<DrawingPage />, { route: '/midjourney', user: admin });
    await screen.findByText('mj-1');
    fireEvent.change(screen.getByPlaceholderText('渠道 ID'), { target: { value: 'x1' } });
    await userEvent.click(searchButton());
    expect(await screen.findByText('渠道 ID 必须是数字')).toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/mj/')).toHaveLength(1);
  });

  it('shows an empty table for the empty page the server answers today', async () => {
    fake.ok('GET', '/api/mj/self', page([]));
    const { container } = renderPage(<DrawingPage />, { route: '/midjourney', user });
    await waitFor(() => expect(fake.callsTo('GET', '/api/mj/self')).toHaveLength(1));
    await waitFor(() => expect(container.querySelector('.ant-empty-description')).toHaveTextContent('暂无数据'));
    expect(container.querySelectorAll('tbody tr.ant-table-row')).toHaveLength(0);
  });
});

describe('async task screen', () => {
  it("reads /api/task/self from today's midnight, without the channel", async () => {
    fake.ok('GET', '/api/task/self', page([task()]));
    renderPage(<TasksPage />, { route: '/task', user });
    await screen.findByText('task-1');
    const params = lastQuery('/api/task/self');
    expect(params).toMatchObject({ p: '1', page_size: '10', task_id: '', start_timestamp: String(dayjs().startOf('day').unix()) });
    expect(params).not.toHaveProperty('channel_id');
    expect(Number(params.end_timestamp)).toBeGreaterThan(Date.now() / 1000 + 3500);
    for (const title of ['提交时间', '结束时间', '花费时间', '平台', '类型', '任务ID', '任务状态', '进度', '失败原因']) {
      expect(headers()).toContain(title);
    }
    expect(headers()).not.toContain('渠道');
  });

  it('labels platforms, actions and statuses, colours long tasks red, and filters for admins', async () => {
    fake.ok(
      'GET',
      '/api/task/',
      page([
        task({ task_id: 't-music' }),
        task({ task_id: 't-lyrics', action: 'LYRICS', status: 'QUEUED', finish_time: submitted + 20, progress: '0%' }),
        task({ task_id: 't-fail', status: 'FAILURE', fail_reason: 'upstream said no', finish_time: 0 }),
        task({ task_id: 't-new', status: '', platform: 'other' }),
        task({ task_id: 't-unknown', status: 'UNKNOWN' }),
        task({ task_id: 't-run', status: 'IN_PROGRESS' }),
        task({ task_id: 't-sub', status: 'SUBMITTED' }),
        task({ task_id: 't-idle', status: 'NOT_START' }),
      ]),
    );
    renderPage(<TasksPage />, { route: '/task', user: admin });
    await screen.findByText('t-music');
    expect(headers()).toContain('渠道');

    const music = rowOf('t-music');
    expect(music.getByText('Suno')).toBeInTheDocument();
    expect(music.getByText('音乐')).toBeInTheDocument();
    expect(music.getByText('成功')).toBeInTheDocument();
    expect(music.getByText('7')).toBeInTheDocument();
    expect(tagClass(music.getByText('90 秒'))).toContain('ant-tag-red');
    const lyrics = rowOf('t-lyrics');
    expect(lyrics.getByText('歌词')).toBeInTheDocument();
    expect(lyrics.getByText('排队中')).toBeInTheDocument();
    expect(tagClass(lyrics.getByText('20 秒'))).toContain('ant-tag-green');
    expect(rowOf('t-fail').getByText('失败')).toBeInTheDocument();
    expect(rowOf('t-fail').getByText('upstream said no')).toBeInTheDocument();
    expect(rowOf('t-new').getByText('正在提交')).toBeInTheDocument();
    expect(rowOf('t-new').getByText('other')).toBeInTheDocument();
    expect(rowOf('t-unknown').getByText('未知')).toBeInTheDocument();
    expect(rowOf('t-run').getByText('执行中')).toBeInTheDocument();
    expect(rowOf('t-sub').getByText('队列中')).toBeInTheDocument();
    expect(rowOf('t-idle').getByText('未启动')).toBeInTheDocument();

    fireEvent.change(screen.getByPlaceholderText('渠道 ID'), { target: { value: '7' } });
    fireEvent.change(screen.getByPlaceholderText('任务 ID'), { target: { value: 't-music' } });
    await userEvent.click(searchButton());
    await waitFor(() => expect(lastQuery('/api/task/')).toMatchObject({ channel_id: '7', task_id: 't-music' }));
    expect(fake.unexpected).toEqual([]);
  });

  it('speaks English when chosen', async () => {
    fake.ok('GET', '/api/task/self', page([task({ action: 'LYRICS' })]));
    renderPage(<TasksPage />, { route: '/task', user, locale: 'en-US' });
    expect(await screen.findByText('Lyrics')).toBeInTheDocument();
    expect(screen.getByText('Succeeded')).toBeInTheDocument();
    expect(screen.getByText('90 s')).toBeInTheDocument();
  });
});
