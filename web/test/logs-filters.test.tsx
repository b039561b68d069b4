import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import dayjs from 'dayjs';
import { LogType, Role, type LogView } from '@aigw/contracts';
import { LogsPage } from '../src/features/logs/LogsPage';
import { initialFilterValues, toFilterParams } from '../src/features/logs/LogFilters';
import { defaultLogWindow } from '../src/features/logs/time';
import type { RecordedCall } from './fake-api';
import { makeUser, renderPage, setupFakeApi } from './render';

const admin = makeUser({ id: 1, username: 'root', role: Role.Admin });
const user = makeUser({ id: 2, username: 'alice' });

// Role queries compute accessible names over the whole antd tree and take seconds: these read the DOM directly.
const searchButton = () => screen.getByText('查询').closest('button')!;

const fake = setupFakeApi();

const query = (call: RecordedCall) => Object.fromEntries(call.query);
const lastQuery = (path: string) => query(fake.callsTo('GET', path).at(-1)!);
const log: LogView = {
  id: 1,
  created_at: 1_700_000_000,
  type: LogType.Consume,
  content: 'x',
  user_id: 2,
  username: 'alice',
  token_id: 1,
  token_name: 't',
  model_name: 'm',
  quota: 1,
  prompt_tokens: 1,
  completion_tokens: 1,
  use_time: 1,
  is_stream: false,
  channel: 1,
  group: 'default',
  other: '',
  request_id: '',
};
/** Filter tests need no rows (an empty table renders fast); the row only shows that the answer arrived. */
function answer(admin: boolean, total = 0, items: LogView[] = []) {
  fake.ok('GET', admin ? '/api/log/' : '/api/log/self', { items, total, page: 1, page_size: 10 });
  fake.ok('GET', admin ? '/api/log/stat' : '/api/log/self/stat', { quota: 0, rpm: 0, tpm: 0 });
}
/** Both answers shown: the totals filled in and the table no longer loading. */
async function ready() {
  await screen.findByText('RPM：0');
  await waitFor(() => expect(document.querySelector('.ant-spin-spinning')).toBeNull());
}
const midnight = () => dayjs().startOf('day').unix();

describe('log filters', () => {
  it('builds the default window: today 00:00 to one hour ahead', () => {
    const now = new Date(2025, 4, 6, 15, 30).getTime();
    const window = defaultLogWindow(now);
    expect(window.start).toBe(new Date(2025, 4, 6, 0, 0).getTime());
    expect(window.end).toBe(now + 3_600_000);
    const params = toFilterParams({ ...initialFilterValues(window), token_name: ' t ', channel: '4', username: 'bob' }, false);
    expect(params).toEqual({
      type: 0,
      token_name: 't',
      model_name: '',
      group: '',
      start_timestamp: window.start / 1000,
      end_timestamp: Math.floor(window.end / 1000),
    });
    expect(toFilterParams({ ...initialFilterValues(window), channel: '4', username: 'bob' }, true)).toMatchObject({ channel: '4', username: 'bob' });
    expect(toFilterParams({ ...initialFilterValues(window), range: null }, true)).toMatchObject({ start_timestamp: undefined, end_timestamp: undefined });
  });

  it('reads the self routes for users, with the default window and without admin filters', async () => {
    answer(false, 1, [log]);
    renderPage(<LogsPage />, { route: '/log', user });
    await screen.findByText('t');
    const before = Math.floor(Date.now() / 1000);
    const list = lastQuery('/api/log/self');
    expect(list).toMatchObject({ p: '1', page_size: '10', type: '0', token_name: '', model_name: '', group: '', start_timestamp: String(midnight()) });
    expect(Number(list.end_timestamp)).toBeGreaterThan(before + 3500);
    expect(Number(list.end_timestamp)).toBeLessThanOrEqual(before + 3600);
    expect(list).not.toHaveProperty('username');
    expect(list).not.toHaveProperty('channel');
    const stat = lastQuery('/api/log/self/stat');
    expect(stat).toEqual({ type: '0', token_name: '', model_name: '', group: '', start_timestamp: list.start_timestamp, end_timestamp: list.end_timestamp });
    expect(screen.queryByPlaceholderText('渠道 ID')).not.toBeInTheDocument();
    expect(screen.queryByPlaceholderText('用户名称')).not.toBeInTheDocument();
    expect(fake.unexpected).toEqual([]);
  });

  it('reads the admin routes with channel and user name, and sends every filter on query', async () => {
    answer(true);
    renderPage(<LogsPage />, { route: '/log', user: admin });
    await ready();
    expect(lastQuery('/api/log/')).toMatchObject({ username: '', channel: '' });

    fireEvent.change(screen.getByPlaceholderText('令牌名称'), { target: { value: 'my-token' } });
    fireEvent.change(screen.getByPlaceholderText('模型名称'), { target: { value: 'gpt-4o' } });
    fireEvent.change(screen.getByPlaceholderText('分组'), { target: { value: 'vip' } });
    fireEvent.change(screen.getByPlaceholderText('渠道 ID'), { target: { value: '12' } });
    fireEvent.change(screen.getByPlaceholderText('用户名称'), { target: { value: 'bob' } });
    await userEvent.click(searchButton());

    await waitFor(() => expect(lastQuery('/api/log/')).toMatchObject({ token_name: 'my-token' }));
    const expected = {
      type: '0',
      token_name: 'my-token',
      model_name: 'gpt-4o',
      group: 'vip',
      channel: '12',
      username: 'bob',
      start_timestamp: String(midnight()),
    };
    expect(lastQuery('/api/log/')).toMatchObject({ ...expected, p: '1', page_size: '10' });
    await waitFor(() => expect(lastQuery('/api/log/stat')).toMatchObject(expected));
    expect(lastQuery('/api/log/stat')).not.toHaveProperty('p');
    expect(fake.unexpected).toEqual([]);
  });

  it('refuses a channel id that is not a number', async () => {
    answer(true);
    renderPage(<LogsPage />, { route: '/log', user: admin });
    await ready();
    const calls = fake.callsTo('GET', '/api/log/').length;
    fireEvent.change(screen.getByPlaceholderText('渠道 ID'), { target: { value: 'abc' } });
    await userEvent.click(searchButton());
    expect(await screen.findByText('渠道 ID 必须是数字')).toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/log/')).toHaveLength(calls);
  });

  it('applies the type filter at once, to the list and the totals', async () => {
    answer(false);
    renderPage(<LogsPage />, { route: '/log', user });
    await ready();
    fireEvent.mouseDown(screen.getByLabelText('日志类型', { selector: 'input' }));
    for (const label of ['充值', '消费', '管理', '系统']) expect(await screen.findByTitle(label)).toBeInTheDocument();
    expect(screen.getAllByTitle('全部').length).toBeGreaterThan(1);
    await userEvent.click(screen.getByTitle('消费'));
    await waitFor(() => expect(lastQuery('/api/log/self')).toMatchObject({ type: '2', p: '1' }));
    await waitFor(() => expect(lastQuery('/api/log/self/stat')).toMatchObject({ type: '2' }));
  });

  it('queries again with the same filters when asked', async () => {
    answer(false);
    renderPage(<LogsPage />, { route: '/log', user });
    await ready();
    expect(fake.callsTo('GET', '/api/log/self')).toHaveLength(1);
    await userEvent.click(searchButton());
    await waitFor(() => expect(fake.callsTo('GET', '/api/log/self')).toHaveLength(2));
    await waitFor(() => expect(fake.callsTo('GET', '/api/log/self/stat')).toHaveLength(2));
  });

  it('drops the time filters when the range is cleared', async () => {
    answer(false);
    const { container } = renderPage(<LogsPage />, { route: '/log', user });
    await ready();
    fireEvent.mouseDown(container.querySelector('.ant-picker-clear')!);
    fireEvent.mouseUp(container.querySelector('.ant-picker-clear')!);
    fireEvent.click(container.querySelector('.ant-picker-clear')!);
    await userEvent.click(searchButton());
    await waitFor(() => expect(fake.callsTo('GET', '/api/log/self')).toHaveLength(2));
    expect(lastQuery('/api/log/self')).not.toHaveProperty('start_timestamp');
    expect(lastQuery('/api/log/self')).not.toHaveProperty('end_timestamp');
  });

  it('pages with p; the totals do not depend on the page', async () => {
    answer(false, 45);
    renderPage(<LogsPage />, { route: '/log', user });
    await ready();
    fireEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(lastQuery('/api/log/self')).toMatchObject({ p: '2', page_size: '10' }));
    expect(fake.callsTo('GET', '/api/log/self/stat')).toHaveLength(1);
  });

  it('keeps the chosen page size as the preference and starts again at page 1', async () => {
    answer(false, 45);
    const { store } = renderPage(<LogsPage />, { route: '/log', user });
    await ready();
    fireEvent.mouseDown(document.querySelector('.ant-pagination-options .ant-select')!);
    fireEvent.click(await screen.findByTitle('20 条/页'));
    await waitFor(() => expect(lastQuery('/api/log/self')).toMatchObject({ p: '1', page_size: '20' }));
    expect(store.getState().preferences.pageSize).toBe(20);
  });
});
