import type { ReactElement } from 'react';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { AsyncTask, DrawingTask } from '@aigw/contracts';
import { ImageCell, safeWebUrl, TaskResultCell } from '../src/features/tasks/cells';
import { DrawingPage } from '../src/features/tasks/DrawingPage';
import { formatClipDuration, parseTaskResult } from '../src/features/tasks/suno-result';
import { TasksPage } from '../src/features/tasks/TasksPage';
import { makeUser, renderPage, setupFakeApi } from './render';

// What the relay now stores and lists: proxied drawing images (a path on this server) and Suno's
// results (the song's clips with their audio, or the lyrics) in an async task's `data`.

const user = makeUser({ id: 2, username: 'alice' });
const origin = window.location.origin;
const submitted = 1_715_000_000_000;
const page = <T,>(items: T[]) => ({ items, total: items.length, page: 1, page_size: 10 });
const headers = () => [...document.querySelectorAll('thead th')].map((cell) => cell.textContent);
const rowOf = (text: string) => within(screen.getByText(text).closest('tr')!);

const fake = setupFakeApi();

function clip(overrides: Record<string, unknown> = {}) {
  return {
    id: 'clip-1',
    title: 'Fox song',
    status: 'complete',
    audio_url: 'https://cdn.suno.test/clip-1.mp3',
    video_url: 'https://cdn.suno.test/clip-1.mp4',
    image_url: 'https://cdn.suno.test/clip-1.png',
    image_large_url: 'https://cdn.suno.test/clip-1-large.png',
    model_name: 'chirp-v3',
    metadata: { tags: 'pop', prompt: 'la la', duration: 125.6, error_message: null },
    ...overrides,
  };
}

function task(overrides: Partial<AsyncTask> = {}): AsyncTask {
  return {
    submit_time: submitted,
    finish_time: submitted + 30_000,
    progress: '100%',
    channel_id: 0,
    platform: 'suno',
    action: 'MUSIC',
    task_id: 'task-1',
    status: 'SUCCESS',
    fail_reason: '',
    data: '',
    ...overrides,
  };
}

function drawing(overrides: Partial<DrawingTask> = {}): DrawingTask {
  return {
    submit_time: submitted,
    finish_time: submitted + 20_000,
    channel_id: 0,
    action: 'IMAGINE',
    mj_id: 'mj-1',
    code: 1,
    status: 'SUCCESS',
    progress: '100%',
    image_url: '/mj/image/mj-1',
    prompt: 'a fox',
    prompt_en: 'a fox, english',
    fail_reason: '',
    ...overrides,
  };
}

/** A cell alone, in the console's providers (zh-CN). */
const inChinese = (cell: ReactElement) => renderPage(cell, { user });

describe('safeWebUrl', () => {
  it("resolves a path on this server against the page's origin", () => {
    expect(safeWebUrl('/mj/image/123')).toBe(`${origin}/mj/image/123`);
    expect(safeWebUrl('/mj/image/1?x=2', 'https://console.example.com')).toBe('https://console.example.com/mj/image/1?x=2');
  });

  it('keeps absolute http(s) addresses', () => {
    expect(safeWebUrl('https://cdn.example.com/a.png')).toBe('https://cdn.example.com/a.png');
    expect(safeWebUrl('http://upstream.test:8080/a.png')).toBe('http://upstream.test:8080/a.png');
  });

  it('refuses other schemes, other origins in disguise and bare words', () => {
    for (const url of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://x.test/a.png', '//evil.test/a.png', '/\\evil.test/a.png', 'not a url', '']) {
      expect(safeWebUrl(url, 'https://console.example.com')).toBeNull();
    }
  });
});

describe('parseTaskResult', () => {
  it("reads a song's clips leniently", () => {
    const result = parseTaskResult(JSON.stringify([clip(), clip({ id: 'clip-2', title: '', audio_url: 42, metadata: { duration: '61' } }), 'junk']));
    expect(result).toEqual({
      kind: 'music',
      clips: [
        { id: 'clip-1', title: 'Fox song', status: 'complete', audioUrl: 'https://cdn.suno.test/clip-1.mp3', duration: 125.6, errorMessage: '' },
        { id: 'clip-2', title: '', status: 'complete', audioUrl: '', duration: 61, errorMessage: '' },
      ],
    });
  });

  it('reads lyrics, and nothing from an empty, broken or unexpected text', () => {
    expect(parseTaskResult(JSON.stringify({ id: 'l1', status: 'complete', title: 'Foxes', text: 'verse one\nverse two' }))).toEqual({
      kind: 'lyrics',
      lyrics: { title: 'Foxes', text: 'verse one\nverse two' },
    });
    for (const data of [undefined, '', '{not json', '[]', '"text"', '{"unrelated":1}', 'null']) expect(parseTaskResult(data)).toEqual({ kind: 'none' });
  });

  it('shows lengths as m:ss', () => {
    expect(formatClipDuration(125.6)).toBe('2:06');
    expect(formatClipDuration(59.4)).toBe('0:59');
    expect(formatClipDuration(3725)).toBe('1:02:05');
  });
});

describe('result cells', () => {
  it('links each clip of a song to its audio with its title and length', () => {
    inChinese(
      <TaskResultCell
        data={JSON.stringify([
          clip(),
          clip({ id: 'clip-2', title: 'Fox song (take 2)', audio_url: 'https://cdn.suno.test/clip-2.mp3', metadata: { duration: 61 } }),
        ])}
      />,
    );
    const first = screen.getByRole('link', { name: 'Fox song 的音频' });
    expect(first).toHaveAttribute('href', 'https://cdn.suno.test/clip-1.mp3');
    expect(first).toHaveAttribute('target', '_blank');
    expect(first).toHaveAttribute('rel', 'noopener noreferrer');
    expect(first).toHaveTextContent('音频');
    expect(screen.getByRole('link', { name: 'Fox song (take 2) 的音频' })).toHaveAttribute('href', 'https://cdn.suno.test/clip-2.mp3');
    expect(screen.getByText('Fox song')).toBeInTheDocument();
    expect(screen.getByText('2:06')).toBeInTheDocument();
    expect(screen.getByText('1:01')).toBeInTheDocument();
  });

  it('never links an address that is not a web address, and shows a failed clip its reason', () => {
    inChinese(
      <TaskResultCell
        data={JSON.stringify([
          clip({ id: 'a', title: 'Evil', audio_url: 'javascript:alert(1)' }),
          clip({ id: 'b', title: '', audio_url: '', status: 'error', metadata: { error_message: 'content policy' } }),
        ])}
      />,
    );
    expect(screen.queryAllByRole('link')).toHaveLength(0);
    expect(screen.getByText('Evil')).toBeInTheDocument();
    expect(screen.getByText('未命名')).toBeInTheDocument();
    expect(screen.getByText('content policy')).toBeInTheDocument();
  });

  it('shows lyrics with their title and the whole text', () => {
    const { container } = inChinese(<TaskResultCell data={JSON.stringify({ id: 'l1', status: 'complete', title: 'Foxes', text: 'verse one\nverse two' })} />);
    expect(screen.getByText('Foxes')).toBeInTheDocument();
    const paragraph = container.querySelector('div.ant-typography')!;
    expect(paragraph.textContent).toContain('verse one\nverse two');
    expect(paragraph).toHaveStyle({ whiteSpace: 'pre-line' });
  });

  it('shows 无 while there is no result', () => {
    inChinese(<TaskResultCell data="" />);
    expect(screen.getByText('无')).toBeInTheDocument();
  });

  it("shows a proxied drawing from this server's path, opens it, and previews it on a click", async () => {
    inChinese(<ImageCell url="/mj/image/mj-9" />);
    const image = screen.getByAltText('结果图片');
    expect(image).toHaveAttribute('src', `${origin}/mj/image/mj-9`);
    expect(screen.getByText('打开').closest('a')).toHaveAttribute('href', `${origin}/mj/image/mj-9`);
    expect(document.querySelector('.ant-image-preview')).not.toBeInTheDocument();
    fireEvent.click(image);
    await waitFor(() => expect(document.querySelector('.ant-image-preview')).toBeInTheDocument());
    expect(document.querySelector('.ant-image-preview img')).toHaveAttribute('src', `${origin}/mj/image/mj-9`);
  });

  it('shows 无 for a drawing image that is not a web address', () => {
    inChinese(<ImageCell url="javascript:alert(1)" />);
    expect(screen.getByText('无')).toBeInTheDocument();
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
  });
});

describe('the screens', () => {
  it('/task shows the music, the lyrics and the failure of each task in its row', async () => {
    fake.ok(
      'GET',
      '/api/task/self',
      page([
        task({ task_id: 't-music', data: JSON.stringify([clip()]) }),
        task({ task_id: 't-lyrics', action: 'LYRICS', data: JSON.stringify({ id: 'l1', status: 'complete', title: 'Foxes', text: 'run little fox' }) }),
        task({ task_id: 't-fail', status: 'FAILURE', progress: '50%', fail_reason: 'upstream failed the song', data: '' }),
      ]),
    );
    renderPage(<TasksPage />, { route: '/task', user });
    await screen.findByText('t-music');
    expect(headers()).toContain('结果');

    expect(rowOf('t-music').getByRole('link', { name: 'Fox song 的音频' })).toHaveAttribute('href', 'https://cdn.suno.test/clip-1.mp3');
    expect(rowOf('t-music').getByText('2:06')).toBeInTheDocument();
    expect(rowOf('t-lyrics').getByText('run little fox')).toBeInTheDocument();
    const failed = rowOf('t-fail');
    expect(failed.getByText('upstream failed the song')).toBeInTheDocument();
    expect(failed.getByText('失败')).toBeInTheDocument();
    expect(failed.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '50');
    expect(failed.getByText('无')).toBeInTheDocument();
    expect(fake.unexpected).toEqual([]);
  });

  it('/task speaks English', async () => {
    fake.ok('GET', '/api/task/self', page([task({ data: JSON.stringify([clip()]) })]));
    renderPage(<TasksPage />, { route: '/task', user, locale: 'en-US' });
    expect(await screen.findByRole('link', { name: 'Audio of Fox song' })).toHaveTextContent('Audio');
    expect(headers()).toContain('Result');
  });

  it("/midjourney shows a proxied image from this server and a failed drawing's reason", async () => {
    fake.ok(
      'GET',
      '/api/mj/self',
      page([drawing(), drawing({ mj_id: 'mj-2', status: 'FAILURE', progress: '50%', image_url: '', fail_reason: 'the upstream said taskfail' })]),
    );
    renderPage(<DrawingPage />, { route: '/midjourney', user });
    await screen.findByText('mj-1');
    expect(rowOf('mj-1').getByAltText('结果图片')).toHaveAttribute('src', `${origin}/mj/image/mj-1`);
    const failed = rowOf('mj-2');
    expect(failed.getByText('the upstream said taskfail')).toBeInTheDocument();
    expect(failed.getByText('无')).toBeInTheDocument();
    expect(failed.queryByAltText('结果图片')).not.toBeInTheDocument();
    expect(failed.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '50');
  });
});
