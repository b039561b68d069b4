import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PersonalTab } from '../src/features/settings/personal/PersonalTab';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const stored = makeUser({ id: 2, username: 'alice', quota: 1, used_quota: 1, request_count: 1 });
const fresh = makeUser({
  id: 2,
  username: 'alice',
  quota: 2_500_000,
  used_quota: 750_000,
  request_count: 1234,
  aff_quota: 1_500_000,
  aff_history_quota: 3_000_000,
  aff_count: 6,
});
const modelNames = Array.from({ length: 13 }, (_, index) => `model-${String(index + 1).padStart(2, '0')}`);

const fake = setupFakeApi();
let writeText: jest.Mock;

beforeEach(() => {
  writeText = stubClipboard();
  fake.ok('GET', '/api/user/self', fresh);
  fake.ok('GET', '/api/user/aff', 'Xy9Z');
  fake.ok('GET', '/api/user/models', modelNames);
  fake.ok('GET', '/api/limits/use', []);
});

const open = () => renderPage(<PersonalTab />, { route: '/setting', user: stored });

// Text queries, not role queries: role queries walk the whole antd tree and are slow here.
async function clickButton(text: string, container: HTMLElement = document.body) {
  const label = await within(container).findByText(text);
  await userEvent.click(label.closest('button')!);
}

async function openTransfer(): Promise<HTMLElement> {
  // The button beside the pending earnings (the dialog's own button is rendered, hidden, too).
  const pending = (await screen.findByText('待使用收益')).closest('.ant-col') as HTMLElement;
  await clickButton('划 转', pending);
  const title = await screen.findByText('划转邀请收益到余额');
  return title.closest('.ant-modal') as HTMLElement;
}

/** The statistic whose title is `title` (antd renders title and value in one block). */
function statistic(title: string): HTMLElement {
  return screen.getByText(title).closest('.ant-statistic') as HTMLElement;
}

describe('personal settings: balance and invitation', () => {
  it('shows balance, consumption and requests from GET /api/user/self, and updates the stored user', async () => {
    const { store } = open();
    await waitFor(() => expect(within(statistic('当前余额')).getByText('$5.00')).toBeInTheDocument());
    expect(within(statistic('历史消耗')).getByText('$1.50')).toBeInTheDocument();
    expect(within(statistic('请求次数')).getByText('1,234')).toBeInTheDocument();
    expect(store.getState().session.user).toMatchObject({ quota: 2_500_000, used_quota: 750_000, request_count: 1234 });
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ quota: 2_500_000 });
  });

  it('shows quota as a compact number when the server does not display currency', async () => {
    renderPage(<PersonalTab />, { route: '/setting', user: stored, status: { display_in_currency: false } });
    await waitFor(() => expect(within(statistic('当前余额')).getByText('2.5M')).toBeInTheDocument());
    expect(within(statistic('历史消耗')).getByText('750k')).toBeInTheDocument();
  });

  it('shows the invite figures and copies the invite link on click', async () => {
    open();
    await waitFor(() => expect(within(statistic('待使用收益')).getByText('$3.00')).toBeInTheDocument());
    expect(within(statistic('总收益')).getByText('$6.00')).toBeInTheDocument();
    expect(within(statistic('邀请人数')).getByText('6')).toBeInTheDocument();

    const link = `${window.location.origin}/register?aff=Xy9Z`;
    const input = await screen.findByDisplayValue(link);
    await userEvent.click(input);
    expect(writeText).toHaveBeenCalledWith(link);
    expect(await screen.findByText('邀请链接已复制到剪切板')).toBeInTheDocument();
  });

  it('refuses a transfer below the quota-per-unit value', async () => {
    fake.ok('POST', '/api/user/aff_transfer', null, 'transferred $1.00');
    open();
    const dialog = await openTransfer();
    const amount = within(dialog).getByLabelText('划转额度');
    expect(amount).toHaveValue('500000');
    await userEvent.clear(amount);
    await userEvent.type(amount, '499999');
    await clickButton('划 转', dialog);
    expect(await within(dialog).findByText('划转金额最低为 $1.00')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/aff_transfer')).toHaveLength(0);
  });

  it('transfers the amount, shows the server message and refreshes the figures', async () => {
    fake.ok('POST', '/api/user/aff_transfer', null, 'transferred $2.00');
    open();
    const dialog = await openTransfer();
    expect(within(dialog).getByDisplayValue('$3.00')).toBeInTheDocument();
    const amount = within(dialog).getByLabelText('划转额度');
    await userEvent.clear(amount);
    await userEvent.type(amount, '1000000');
    // After the transfer the server answers the moved earnings in the balance.
    fake.ok('GET', '/api/user/self', { ...fresh, quota: 3_500_000, aff_quota: 500_000 });
    await clickButton('划 转', dialog);

    expect(await screen.findByText('transferred $2.00')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/aff_transfer').map((call) => call.body)).toEqual([{ quota: 1_000_000 }]);
    await waitFor(() => expect(within(statistic('当前余额')).getByText('$7.00')).toBeInTheDocument());
    expect(within(statistic('待使用收益')).getByText('$1.00')).toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/user/self')).toHaveLength(2);
  });

  it('shows the server message when the transfer fails', async () => {
    fake.fail('POST', '/api/user/aff_transfer', 'quota: more than your pending invite earnings');
    open();
    const dialog = await openTransfer();
    await clickButton('划 转', dialog);
    expect(await screen.findByText('quota: more than your pending invite earnings')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/aff_transfer').map((call) => call.body)).toEqual([{ quota: 500_000 }]);
    expect(dialog).toBeVisible();
  });
});

describe('personal settings: available models', () => {
  it('shows the first 10 models, then expands and collapses the rest', async () => {
    open();
    expect(await screen.findByText('model-10')).toBeInTheDocument();
    expect(screen.queryByText('model-11')).not.toBeInTheDocument();

    await userEvent.click(screen.getByText('更多 3 个模型'));
    expect(screen.getByText('model-11')).toBeInTheDocument();
    expect(screen.getByText('model-13')).toBeInTheDocument();

    await userEvent.click(screen.getByText('收起'));
    expect(screen.queryByText('model-13')).not.toBeInTheDocument();
    expect(screen.getByText('更多 3 个模型')).toBeInTheDocument();
  });

  it('does not offer to expand 10 models or fewer', async () => {
    fake.ok('GET', '/api/user/models', modelNames.slice(0, 10));
    open();
    expect(await screen.findByText('model-10')).toBeInTheDocument();
    expect(screen.queryByText(/更多 \d+ 个模型/)).not.toBeInTheDocument();
  });

  it('copies a model name on click', async () => {
    open();
    await userEvent.click(await screen.findByText('model-03'));
    expect(writeText).toHaveBeenCalledWith('model-03');
    expect(await screen.findByText('已复制：model-03')).toBeInTheDocument();
  });

  it('says the model list could not be loaded', async () => {
    fake.fail('GET', '/api/user/models', 'database unavailable');
    open();
    expect(await screen.findByText('获取模型列表失败')).toBeInTheDocument();
    expect(screen.getByText('database unavailable')).toBeInTheDocument();
  });
});

describe('personal settings: my rate limits', () => {
  const limitsCard = async () => (await screen.findByText('我的速率限制')).closest('.ant-card') as HTMLElement;
  /** The card's row of one limit (antd's bordered descriptions: the label cell, then the content cell). */
  const rowOf = (card: HTMLElement, label: string) => within(card).getByText(label).closest('tr') as HTMLElement;

  it("shows the user's own limits from GET /api/user/self, with what each has counted", async () => {
    fake.ok('GET', '/api/user/self', { ...fresh, rate_limits: { rpd: 1000, tpm: 20_000, concurrency: 3 } });
    fake.ok('GET', '/api/limits/use', [
      { field: 'rpm', used: 0, reset_seconds: 12 },
      { field: 'rpd', used: 312, reset_seconds: 3600 },
      { field: 'tpm', used: 1500, reset_seconds: 12 },
      { field: 'tpd', used: 9000, reset_seconds: 3600 },
    ]);
    open();
    const card = await limitsCard();
    expect(within(rowOf(card, '每天请求数 (RPD)')).getByText('1,000 次 / 每天')).toBeInTheDocument();
    expect(await within(rowOf(card, '每天请求数 (RPD)')).findByText('已用 312 次')).toBeInTheDocument();
    expect(within(rowOf(card, '每分钟 Token 数 (TPM)')).getByText('20,000 Token / 每分钟')).toBeInTheDocument();
    expect(within(rowOf(card, '每分钟 Token 数 (TPM)')).getByText('已用 1,500 Token')).toBeInTheDocument();
    expect(within(rowOf(card, '同时进行的请求数')).getByText('3 个')).toBeInTheDocument();
    // What the own set leaves open says so, without a count that belongs to another limit.
    expect(rowOf(card, '每分钟请求数 (RPM)')).toHaveTextContent(/^每分钟请求数 \(RPM\)不限制$/);
    expect(rowOf(card, '每天 Token 数 (TPD)')).toHaveTextContent(/^每天 Token 数 \(TPD\)不限制$/);
    expect(Object.fromEntries(fake.callsTo('GET', '/api/limits/use')[0]!.query)).toEqual({ scope: 'user', id: '2' });
  });

  it('shows the limits alone when the use is unknown', async () => {
    fake.ok('GET', '/api/user/self', { ...fresh, rate_limits: { rpm: 60 } });
    fake.status('GET', '/api/limits/use', 503, { success: false, message: 'limits_unavailable' });
    const { store } = open();
    const card = await limitsCard();
    // Settled: the refusal has reached the store, and the card still shows the limits.
    await waitFor(() => expect(Object.values(store.getState().api.queries).find((query) => query?.endpointName === 'limitUse')?.status).toBe('rejected'));
    expect(within(rowOf(card, '每分钟请求数 (RPM)')).getByText('60 次 / 每分钟')).toBeInTheDocument();
    expect(within(card).getAllByText('不限制')).toHaveLength(4);
    expect(within(card).queryByText(/已用/)).not.toBeInTheDocument();
    // The use is secondary: its failure is not announced.
    expect(screen.queryByText('limits_unavailable')).not.toBeInTheDocument();
  });
});
