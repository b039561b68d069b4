import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role, type UsageRow } from '@aigw/contracts';
import { DashboardPage } from '../src/features/dashboard/DashboardPage';
import { bucketLabel, bucketStart, defaultDashboardWindow, summarize, toGranularity } from '../src/features/dashboard/buckets';
import type { RecordedCall } from './fake-api';
import { makeUser, renderPage, setupFakeApi } from './render';

const admin = makeUser({ id: 1, username: 'root', role: Role.Root });
const user = makeUser({ id: 2, username: 'alice' });

// Role queries compute accessible names over the whole antd tree and take seconds: these read the DOM directly.
const searchButton = () => screen.getByText('查询').closest('button')!;

const fake = setupFakeApi();
let measure: jest.SpyInstance;
beforeEach(() => {
  // jsdom lays nothing out: give the charts' containers a size, as a browser would.
  const original = HTMLElement.prototype.getBoundingClientRect;
  measure = jest.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('recharts-responsive-container') ? new DOMRect(0, 0, 800, 320) : original.call(this);
  });
});
afterEach(() => {
  measure.mockRestore();
});

/** Unix seconds of a local time. */
const at = (year: number, month: number, day: number, hour = 0) => new Date(year, month - 1, day, hour).getTime() / 1000;
const row = (model_name: string, created_at: number, quota: number, count = 1, token_used = 100): UsageRow => ({
  model_name,
  created_at,
  count,
  quota,
  token_used,
});

// Wednesday 2025-05-07 and the days around it.
const rows: UsageRow[] = [
  row('gpt-4o', at(2025, 5, 7, 9), 500_000, 3, 900),
  row('gpt-3.5-turbo', at(2025, 5, 7, 9), 100_000, 5, 500),
  row('gpt-4o', at(2025, 5, 7, 11), 250_000, 1, 300),
  row('gpt-4o', at(2025, 5, 8, 1), 250_000, 2, 200),
  row('gpt-3.5-turbo', at(2025, 5, 12, 3), 50_000, 1, 100),
];

describe('dashboard bucketing', () => {
  it('groups hourly rows per hour and model, filling idle hours', () => {
    const { buckets, models, totals } = summarize(rows.slice(0, 3), 'hour');
    expect(buckets.map((bucket) => bucket.label)).toEqual(['05-07 09:00', '05-07 10:00', '05-07 11:00']);
    expect(buckets[0]!.quota).toEqual({ 'gpt-4o': 500_000, 'gpt-3.5-turbo': 100_000 });
    expect(buckets[0]!.count).toEqual({ 'gpt-4o': 3, 'gpt-3.5-turbo': 5 });
    expect(buckets[1]!.quota).toEqual({});
    expect(models.map((share) => share.model)).toEqual(['gpt-4o', 'gpt-3.5-turbo']);
    expect(totals).toEqual({ quota: 850_000, tokens: 1700, count: 9 });
  });

  it('merges the hours of a local day', () => {
    const { buckets } = summarize(rows, 'day');
    expect(buckets.map((bucket) => bucket.label)).toEqual(['05-07', '05-08', '05-09', '05-10', '05-11', '05-12']);
    expect(buckets[0]!.quota).toEqual({ 'gpt-4o': 750_000, 'gpt-3.5-turbo': 100_000 });
    expect(buckets[0]!.count).toEqual({ 'gpt-4o': 4, 'gpt-3.5-turbo': 5 });
    expect(buckets[1]!.quota).toEqual({ 'gpt-4o': 250_000 });
    expect(buckets[5]!.quota).toEqual({ 'gpt-3.5-turbo': 50_000 });
  });

  it('merges days into weeks starting on Monday', () => {
    const { buckets, models } = summarize(rows, 'week');
    expect(buckets.map((bucket) => bucket.label)).toEqual(['05-05 - 05-11', '05-12 - 05-18']);
    expect(buckets[0]!.quota).toEqual({ 'gpt-4o': 1_000_000, 'gpt-3.5-turbo': 100_000 });
    expect(buckets[1]!.count).toEqual({ 'gpt-3.5-turbo': 1 });
    expect(models).toEqual([
      { model: 'gpt-4o', quota: 1_000_000, count: 6, tokens: 1400 },
      { model: 'gpt-3.5-turbo', quota: 150_000, count: 6, tokens: 600 },
    ]);
    // Sunday night belongs to the week that began the Monday before.
    expect(bucketStart(at(2025, 5, 11, 23) * 1000, 'week')).toBe(at(2025, 5, 5) * 1000);
    expect(bucketLabel(at(2025, 5, 7, 14) * 1000, 'hour')).toBe('05-07 14:00');
  });

  it('gives nothing for no rows, and reads the status default granularity', () => {
    expect(summarize([], 'day')).toEqual({ buckets: [], models: [], totals: { quota: 0, tokens: 0, count: 0 } });
    expect(['hour', 'day', 'week', 'month', ''].map(toGranularity)).toEqual(['hour', 'day', 'week', 'hour', 'hour']);
  });

  it('opens on a window that suits the granularity, ending an hour ahead', () => {
    const now = at(2025, 5, 7, 12) * 1000;
    const hour = 3_600_000;
    const day = 24 * hour;
    expect(defaultDashboardWindow('hour', now)).toEqual({ start: now + hour - day, end: now + hour });
    expect(defaultDashboardWindow('day', now)).toEqual({ start: now + hour - 7 * day, end: now + hour });
    // 30 days at most: the users' route refuses more.
    expect(defaultDashboardWindow('week', now)).toEqual({ start: now + hour - 30 * day, end: now + hour });
  });
});

const query = (call: RecordedCall) => Object.fromEntries(call.query);

describe('dashboard page', () => {
  it('reads /api/data/self for users over the default window and shows totals, charts and models', async () => {
    fake.ok('GET', '/api/data/self', rows);
    renderPage(<DashboardPage />, { route: '/detail', user, status: { data_export_default_time: 'hour' } });
    expect(await screen.findByText('消耗分布')).toBeInTheDocument();
    expect(screen.getByText('调用次数分布')).toBeInTheDocument();
    expect(screen.getByText('模型消耗占比')).toBeInTheDocument();
    expect(screen.queryByPlaceholderText('用户名称')).not.toBeInTheDocument();

    const call = query(fake.callsTo('GET', '/api/data/self')[0]!);
    expect(Object.keys(call).sort()).toEqual(['end_timestamp', 'start_timestamp']);
    const now = Date.now() / 1000;
    expect(Number(call.end_timestamp)).toBeGreaterThan(now + 3500);
    expect(Number(call.end_timestamp) - Number(call.start_timestamp)).toBe(86_400);

    expect(screen.getByText('统计额度').closest('.ant-statistic')).toHaveTextContent('$2.30');
    expect(screen.getByText('统计 Tokens').closest('.ant-statistic')).toHaveTextContent('2,000');
    expect(screen.getByText('统计次数').closest('.ant-statistic')).toHaveTextContent('12');
    const models = within(screen.getByText('模型统计').closest('.ant-card')!);
    expect(models.getByText('gpt-4o').closest('tr')).toHaveTextContent('gpt-4o$2.00001400');
    expect(models.getByText('gpt-3.5-turbo').closest('tr')).toHaveTextContent('gpt-3.5-turbo$0.30006006');
    expect(screen.getByText('一次最多查询 30 天。', { exact: false })).toBeInTheDocument();
    expect(fake.unexpected).toEqual([]);
  });

  it('starts from the status granularity and regroups without asking again', async () => {
    fake.ok('GET', '/api/data/self', rows);
    const { container } = renderPage(<DashboardPage />, { route: '/detail', user, status: { data_export_default_time: 'week' } });
    await screen.findByText('消耗分布');
    const call = query(fake.callsTo('GET', '/api/data/self')[0]!);
    expect(Number(call.end_timestamp) - Number(call.start_timestamp)).toBe(30 * 86_400);
    expect(screen.getByLabelText('时间粒度', { selector: 'input' }).closest('.ant-select')).toHaveTextContent('周');
    await waitFor(() => expect(container.querySelector('.recharts-wrapper')).not.toBeNull());
    expect(container.textContent).toContain('05-05 - 05-11');

    fireEvent.mouseDown(screen.getByLabelText('时间粒度', { selector: 'input' }));
    await userEvent.click(await screen.findByTitle('天'));
    await waitFor(() => expect(container.textContent).toContain('05-12'));
    expect(container.textContent).not.toContain('05-05 - 05-11');
    expect(fake.callsTo('GET', '/api/data/self')).toHaveLength(1);
  });

  it('lets admins filter by user name on /api/data/', async () => {
    fake.ok('GET', '/api/data/', rows);
    renderPage(<DashboardPage />, { route: '/detail', user: admin });
    await screen.findByText('消耗分布');
    expect(query(fake.callsTo('GET', '/api/data/')[0]!)).toMatchObject({ username: '' });
    expect(screen.queryByText('一次最多查询 30 天。', { exact: false })).not.toBeInTheDocument();
    fireEvent.change(screen.getByPlaceholderText('用户名称'), { target: { value: ' bob ' } });
    await userEvent.click(searchButton());
    await waitFor(() => expect(fake.callsTo('GET', '/api/data/')).toHaveLength(2));
    const second = query(fake.callsTo('GET', '/api/data/')[1]!);
    expect(second.username).toBe('bob');
    expect(second.start_timestamp).toBe(query(fake.callsTo('GET', '/api/data/')[0]!).start_timestamp);
    expect(fake.unexpected).toEqual([]);
  });

  it('shows the empty state when there is no data', async () => {
    fake.ok('GET', '/api/data/self', []);
    renderPage(<DashboardPage />, { route: '/detail', user });
    expect(await screen.findByText('所选时间范围内暂无数据')).toBeInTheDocument();
    expect(screen.queryByText('消耗分布')).not.toBeInTheDocument();
    expect(screen.getByText('统计次数').closest('.ant-statistic')).toHaveTextContent('0');
  });

  it('toasts the server refusal of a range beyond 30 days', async () => {
    fake.fail('GET', '/api/data/self', 'end_timestamp: the time range must be at most 30 days');
    renderPage(<DashboardPage />, { route: '/detail', user });
    expect(await screen.findByText('end_timestamp: the time range must be at most 30 days')).toBeInTheDocument();
  });
});
