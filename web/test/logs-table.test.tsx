import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LogType, Role, type LogView } from '@aigw/contracts';
import { LogsPage } from '../src/features/logs/LogsPage';
import { durationColor, firstTokenColor, firstTokenSeconds, formulaCost, parseOther, retryPath } from '../src/features/logs/log-other';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const admin = makeUser({ id: 1, username: 'root', role: Role.Root });
const user = makeUser({ id: 2, username: 'alice' });

// Role queries compute accessible names over the whole antd tree and take seconds: these read the DOM directly.
const headers = () => [...document.querySelectorAll('thead th')].map((cell) => cell.textContent);

const fake = setupFakeApi();

let nextId = 1;
function makeLog(overrides: Partial<LogView> = {}, other: Record<string, unknown> = {}): LogView {
  return {
    id: nextId++,
    created_at: 1_700_000_000,
    type: LogType.Consume,
    content: 'model ratio 2.50, completion ratio 4.00, group ratio 1.00',
    user_id: 2,
    username: 'alice',
    token_id: 3,
    token_name: 'my-token',
    model_name: 'gpt-4o',
    quota: 7_500,
    prompt_tokens: 1000,
    completion_tokens: 500,
    use_time: 5,
    is_stream: true,
    channel: 3,
    group: 'default',
    request_id: '',
    other: JSON.stringify({ model_ratio: 2.5, completion_ratio: 4, group_ratio: 1, model_price: -1, frt: 1234, ...other }),
    ...overrides,
  };
}

const page = (items: LogView[]) => ({ items, total: items.length, page: 1, page_size: 10 });
function answer(admin: boolean, items: LogView[], stat = { quota: 1_250_000, rpm: 7, tpm: 4321 }) {
  fake.ok('GET', admin ? '/api/log/' : '/api/log/self', page(items));
  fake.ok('GET', admin ? '/api/log/stat' : '/api/log/self/stat', stat);
}
const rowOf = (text: string) => within(screen.getByText(text).closest('tr')!);
/** The value cell beside a Descriptions label (bordered or not). */
const valueOf = (label: HTMLElement) => label.closest('.ant-descriptions-item-label')!.nextElementSibling as HTMLElement;
const tagColor = (element: HTMLElement) =>
  [...element.closest('.ant-tag')!.classList].find((name) => /^ant-tag-(green|orange|red|blue|purple|cyan)$/.test(name));

describe('log rules', () => {
  it('colours durations: under 101 s green, under 300 s orange, else red', () => {
    expect([0, 100, 101, 299, 300, 1000].map(durationColor)).toEqual(['green', 'green', 'orange', 'orange', 'red', 'red']);
  });

  it('colours first-token latency: under 3 s green, under 10 s orange, else red', () => {
    expect([0.5, 2.9, 3, 9.9, 10].map(firstTokenColor)).toEqual(['green', 'green', 'orange', 'orange', 'red']);
    expect(firstTokenSeconds({ frt: 1234 })).toBe(1.2);
    expect(firstTokenSeconds({ frt: -1 })).toBeNull();
    expect(firstTokenSeconds({})).toBeNull();
  });

  it('computes the pay-as-you-go cost and the fixed price', () => {
    // 1.5 x 2.5 x (1000 + 500 x 4) / 500000 = 0.0225
    expect(formulaCost({ group_ratio: 1.5, model_ratio: 2.5, completion_ratio: 4, model_price: -1 }, 1000, 500)).toBeCloseTo(0.0225);
    expect(formulaCost({ group_ratio: 2, model_price: 0.05 }, 10, 10)).toBeCloseTo(0.1);
    expect(formulaCost({}, 10, 10)).toBeNull();
  });

  it('reads the retry path and survives a broken other', () => {
    expect(retryPath({ admin_info: { use_channel: [1, 3] } })).toBe('1 -> 3');
    expect(retryPath({})).toBeNull();
    expect(parseOther('{broken')).toEqual({});
    expect(parseOther('')).toEqual({});
  });
});

describe('log table', () => {
  it('shows the totals from the stat route', async () => {
    answer(false, [makeLog()]);
    renderPage(<LogsPage />, { route: '/log', user });
    expect(await screen.findByText('消耗额度：$2.50')).toBeInTheDocument();
    expect(screen.getByText('RPM：7')).toBeInTheDocument();
    expect(screen.getByText('TPM：4321')).toBeInTheDocument();
    expect(screen.getByText('时间视图仅显示最近 3 天的日志。')).toBeInTheDocument();
  });

  it('shows totals as numbers when currency display is off', async () => {
    answer(false, [], { quota: 1_500_000, rpm: 0, tpm: 0 });
    renderPage(<LogsPage />, { route: '/log', user, status: { display_in_currency: false } });
    expect(await screen.findByText('消耗额度：1.5M')).toBeInTheDocument();
  });

  it('renders a user row without the admin columns', async () => {
    answer(false, [makeLog({ channel: 0, other: JSON.stringify({ model_ratio: 2.5, completion_ratio: 4, group_ratio: 1, frt: 1234 }) })]);
    renderPage(<LogsPage />, { route: '/log', user });
    const row = rowOf(await screen.findByText('my-token').then((cell) => cell.textContent));
    for (const title of ['时间', '令牌', '分组', '类型', '模型', '用时/首字', '提示', '补全', '花费', '详情']) {
      expect(headers()).toContain(title);
    }
    for (const title of ['渠道', '用户', '重试']) expect(headers()).not.toContain(title);
    expect(row.getByText('gpt-4o')).toBeInTheDocument();
    expect(row.getByText('default')).toBeInTheDocument();
    expect(row.getByText('消费')).toBeInTheDocument();
    expect(row.getByText('1000')).toBeInTheDocument();
    expect(row.getByText('500')).toBeInTheDocument();
    expect(row.getByText('$0.015000')).toBeInTheDocument();
    expect(row.getByText('流')).toBeInTheDocument();
    expect(row.getByText('model ratio 2.50, completion ratio 4.00, group ratio 1.00')).toBeInTheDocument();
  });

  it('colours duration and first-token tags by their bands and tags stream or not', async () => {
    answer(false, [
      makeLog({ token_name: 'fast', use_time: 100, is_stream: true }, { frt: 2900 }),
      makeLog({ token_name: 'slow', use_time: 101, is_stream: false }, { frt: 3000 }),
      makeLog({ token_name: 'stuck', use_time: 300 }, { frt: 10_000 }),
      makeLog({ token_name: 'nofrt', use_time: 1 }, { frt: -1 }),
    ]);
    renderPage(<LogsPage />, { route: '/log', user });
    await screen.findByText('fast');
    expect(tagColor(rowOf('fast').getByText('100 s'))).toBe('ant-tag-green');
    expect(tagColor(rowOf('fast').getByText('2.9 s'))).toBe('ant-tag-green');
    expect(tagColor(rowOf('slow').getByText('101 s'))).toBe('ant-tag-orange');
    expect(tagColor(rowOf('slow').getByText('3 s'))).toBe('ant-tag-orange');
    expect(rowOf('slow').getByText('非流')).toBeInTheDocument();
    expect(tagColor(rowOf('stuck').getByText('300 s'))).toBe('ant-tag-red');
    expect(tagColor(rowOf('stuck').getByText('10 s'))).toBe('ant-tag-red');
    // Unknown first-token time: only the duration.
    expect(rowOf('nofrt').getAllByText(/\d s$/)).toHaveLength(1);
  });

  it('labels every log type and leaves usage blank on non-consume rows', async () => {
    answer(false, [
      makeLog({ type: LogType.Topup, token_name: '', model_name: '', content: 'redeemed $10', quota: 5_000_000, other: '' }),
      makeLog({ type: LogType.Manage, token_name: '', model_name: '', content: 'admin set quota', other: '' }),
      makeLog({ type: LogType.System, token_name: '', model_name: '', content: 'welcome gift', other: '' }),
      makeLog({ type: 9, token_name: '', model_name: '', content: 'odd row', other: '' }),
    ]);
    renderPage(<LogsPage />, { route: '/log', user });
    const topup = rowOf(await screen.findByText('redeemed $10').then((cell) => cell.textContent));
    expect(tagColor(topup.getByText('充值'))).toBe('ant-tag-cyan');
    expect(topup.queryByText('$10.000000')).not.toBeInTheDocument();
    expect(topup.queryByText(/ s$/)).not.toBeInTheDocument();
    expect(tagColor(rowOf('admin set quota').getByText('管理'))).toBe('ant-tag-orange');
    expect(tagColor(rowOf('welcome gift').getByText('系统'))).toBe('ant-tag-purple');
    expect(rowOf('odd row').getByText('未知')).toBeInTheDocument();
    // Nothing to expand on rows without billing details.
    expect(document.querySelector('.ant-table-row-expand-icon:not(.ant-table-row-expand-icon-spaced)')).toBeNull();
  });

  it('expands a row into its billing details and the pay-as-you-go formula', async () => {
    answer(false, [makeLog({ prompt_tokens: 1000, completion_tokens: 500, quota: 10_875 }, { group_ratio: 1.5, cache_ratio: 0.5, cache_tokens: 200 })]);
    renderPage(<LogsPage />, { route: '/log', user });
    await screen.findByText('my-token');
    await userEvent.click(screen.getByLabelText('展开行'));
    const details = within(await screen.findByText('计费过程（按量计费）').then((cell) => cell.closest('table')!));
    expect(valueOf(details.getByText('模型倍率'))).toHaveTextContent('2.5');
    expect(valueOf(details.getByText('补全倍率'))).toHaveTextContent('4');
    expect(valueOf(details.getByText('分组倍率'))).toHaveTextContent('1.5');
    expect(valueOf(details.getByText('缓存倍率'))).toHaveTextContent('0.5');
    expect(valueOf(details.getByText('缓存 Tokens'))).toHaveTextContent('200');
    expect(valueOf(details.getByText('首字时间'))).toHaveTextContent('1.2 s');
    expect(valueOf(details.getByText('日志详情'))).toHaveTextContent('model ratio 2.50, completion ratio 4.00, group ratio 1.00');
    // The 200 cached tokens are part of the prompt, billed at the cache ratio: the row's $0.021750.
    expect(
      details.getByText('分组倍率 1.5 × 模型倍率 2.5 × (提示 1000 − 缓存 200 + 缓存 200 × 缓存倍率 0.5 + 补全 500 × 补全倍率 4) / 500000 = $0.021750'),
    ).toBeInTheDocument();
    // A user's row carries no channel path, so no retries line.
    expect(details.queryByText('重试')).not.toBeInTheDocument();
    expect(details.queryByText('模型价格')).not.toBeInTheDocument();
  });

  it('shows the request id of a consume log in its details, to copy for support', async () => {
    const writeText = stubClipboard();
    answer(false, [makeLog({ request_id: '5d2c4a0e-1b7f-4c39-9e57-0f3b1f2a9c11' })]);
    renderPage(<LogsPage />, { route: '/log', user });
    await screen.findByText('my-token');
    await userEvent.click(screen.getByLabelText('展开行'));
    const value = valueOf(await screen.findByText('请求 ID'));
    expect(value).toHaveTextContent('5d2c4a0e-1b7f-4c39-9e57-0f3b1f2a9c11');
    await userEvent.click(value.querySelector('.ant-typography-copy')!);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('5d2c4a0e-1b7f-4c39-9e57-0f3b1f2a9c11'));
  });

  it('names the request id in English and leaves it out of rows without one', async () => {
    answer(false, [
      makeLog({ token_name: 'with-id', request_id: 'req-0123456789' }),
      makeLog({ type: LogType.Topup, token_name: '', model_name: '', content: 'redeemed $10', other: JSON.stringify({ admin_info: {} }) }),
    ]);
    renderPage(<LogsPage />, { route: '/log', user, locale: 'en-US' });
    await screen.findByText('with-id');
    const [withId, topup] = screen.getAllByLabelText('Expand row');
    await userEvent.click(withId!);
    expect(valueOf(await screen.findByText('Request ID'))).toHaveTextContent('req-0123456789');
    await userEvent.click(topup!);
    await waitFor(() => expect(screen.getAllByText('Log details')).toHaveLength(2));
    expect(screen.getAllByText('Request ID')).toHaveLength(1);
  });

  it('shows the model price and the per-call formula for fixed-price calls, audio figures when present', async () => {
    answer(false, [
      makeLog(
        { content: 'model price 0.05, group ratio 2.00' },
        {
          model_price: 0.05,
          group_ratio: 2,
          model_ratio: undefined,
          completion_ratio: undefined,
          audio_ratio: 16,
          audio_completion_ratio: 2,
          audio_input: 30,
          audio_output: 40,
          text_input: 5,
          text_output: 6,
        },
      ),
    ]);
    renderPage(<LogsPage />, { route: '/log', user });
    await screen.findByText('my-token');
    await userEvent.click(screen.getByLabelText('展开行'));
    const details = within(await screen.findByText('计费过程（按次计费）').then((cell) => cell.closest('table')!));
    expect(valueOf(details.getByText('模型价格'))).toHaveTextContent('$0.05 / 次');
    expect(details.queryByText('模型倍率')).not.toBeInTheDocument();
    expect(valueOf(details.getByText('音频倍率'))).toHaveTextContent('16');
    expect(valueOf(details.getByText('音频补全倍率'))).toHaveTextContent('2');
    expect(valueOf(details.getByText('语音输入'))).toHaveTextContent('30');
    expect(valueOf(details.getByText('语音输出'))).toHaveTextContent('40');
    expect(valueOf(details.getByText('文字输入'))).toHaveTextContent('5');
    expect(valueOf(details.getByText('文字输出'))).toHaveTextContent('6');
    expect(details.getByText('模型价格 $0.05 × 分组倍率 2 = $0.100000')).toBeInTheDocument();
  });

  it('gives admins the channel, user and retry columns and the retries in the details', async () => {
    answer(true, [makeLog({ channel: 3, username: 'alice', user_id: 2 }, { admin_info: { use_channel: [1, 3] } })]);
    renderPage(<LogsPage />, { route: '/log', user: admin });
    await screen.findByText('my-token');
    for (const title of ['渠道', '用户', '重试']) expect(headers()).toContain(title);
    const row = rowOf('my-token');
    expect(row.getByText('3')).toBeInTheDocument();
    expect(row.getByText('alice')).toBeInTheDocument();
    expect(row.getByText('1 -> 3')).toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('展开行'));
    expect(await screen.findByText('1 次（渠道：1 -> 3）')).toBeInTheDocument();
  });

  it('opens the admin user popup with GET /api/user/{id}', async () => {
    answer(true, [makeLog({ username: 'alice', user_id: 2 })]);
    fake.ok(
      'GET',
      '/api/user/2',
      makeUser({ id: 2, username: 'alice', display_name: 'Alice W', quota: 2_500_000, used_quota: 500_000, request_count: 42, group: 'vip' }),
    );
    renderPage(<LogsPage />, { route: '/log', user: admin });
    await userEvent.click((await screen.findByText('alice')).closest('button')!);
    const dialog = within((await screen.findByText('用户信息')).closest('.ant-modal') as HTMLElement);
    expect(dialog.getByText('用户信息')).toBeInTheDocument();
    await waitFor(() => expect(dialog.getByText('Alice W')).toBeInTheDocument());
    expect(valueOf(dialog.getByText('用户名'))).toHaveTextContent('alice');
    expect(valueOf(dialog.getByText('余额'))).toHaveTextContent('$5.00');
    expect(valueOf(dialog.getByText('已用额度'))).toHaveTextContent('$1.00');
    expect(valueOf(dialog.getByText('请求次数'))).toHaveTextContent('42');
    expect(valueOf(dialog.getByText('分组'))).toHaveTextContent('vip');
    expect(fake.callsTo('GET', '/api/user/2')).toHaveLength(1);
    expect(fake.unexpected).toEqual([]);
  });

  it('speaks English when chosen', async () => {
    answer(false, [makeLog()]);
    renderPage(<LogsPage />, { route: '/log', user, locale: 'en-US' });
    expect(await screen.findByText('Quota consumed: $2.50')).toBeInTheDocument();
    expect(headers()).toContain('Time / first token');
    expect(screen.getByText('Stream')).toBeInTheDocument();
  });
});
