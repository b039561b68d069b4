import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import dayjs from 'dayjs';
import type { TokenView } from '@aigw/contracts';
import { TokensPage } from '../src/features/tokens/TokensPage';
import { makeUser, renderPage, setupFakeApi } from './render';

const user = makeUser({ id: 3, group: 'default' });
const groups = { default: { desc: 'default group', ratio: 1 }, vip: { desc: 'VIP group', ratio: 2 } };

function token(overrides: Partial<TokenView> = {}): TokenView {
  return {
    id: 5,
    user_id: 3,
    name: 'existing',
    key: 'sk-abcd****wxyz',
    status: 1,
    created_time: 1_700_000_000,
    accessed_time: 1_700_000_000,
    expired_time: -1,
    remain_quota: 1_000_000,
    unlimited_quota: false,
    used_quota: 0,
    model_limits_enabled: false,
    model_limits: '',
    allow_ips: '',
    deny_ips: '',
    group: '',
    rate_limits: {},
    rate_limit_message: '',
    drawing_modes: [],
    ...overrides,
  };
}

// Antd forms and tables render slowly in jsdom when the machine is busy: role queries skip the costly
// visibility check, and queries get room to wait
// (no real timers are involved, so a passing run takes no longer).
configure({ asyncUtilTimeout: 10_000, defaultHidden: true });
jest.setTimeout(90_000);

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/token/', { items: [], total: 0, page: 1, page_size: 10 });
  fake.ok('GET', '/api/user/self/groups', groups);
  fake.ok('GET', '/api/user/models', ['gpt-4o', 'gpt-4o-mini', 'claude-3']);
  fake.on('POST', '/api/token/', (call) => ({ body: { success: true, message: '', data: [token({ name: call.body.name })] } }));
});

async function openCreate() {
  renderPage(<TokensPage />, { user });
  await userEvent.click(await screen.findByRole('button', { name: /添加令牌/ }));
  const drawer = await screen.findByRole('dialog');
  await within(drawer).findByLabelText('名称'); // the form mounts once the groups have loaded
  return drawer;
}

const submit = (drawer: HTMLElement) => userEvent.click(within(drawer).getByRole('button', { name: /提\s*交/ }));
const field = (drawer: HTMLElement, label: string) => within(drawer).getByLabelText(label);
/** Sets a text field at once (typing key by key through antd's inputs is slow in jsdom). */
const fill = (element: HTMLElement, text: string) => fireEvent.change(element, { target: { value: text } });
const posted = () => fake.callsTo('POST', '/api/token/');
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('token form: create', () => {
  it('requires a name', async () => {
    const drawer = await openCreate();
    await submit(drawer);
    expect(await within(drawer).findByText('请输入名称')).toBeInTheDocument();
    expect(posted()).toHaveLength(0);
  });

  it('sends the defaults in one request: $1 quota, never expires, the user group, count 1', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), '  my key ');
    await submit(drawer);
    expect(await screen.findByText('令牌创建成功，请在列表页面点击复制获取令牌！')).toBeInTheDocument();
    expect(posted()).toHaveLength(1);
    expect(posted()[0]!.body).toEqual({
      name: 'my key',
      remain_quota: 500000,
      expired_time: -1,
      unlimited_quota: false,
      model_limits_enabled: false,
      model_limits: '',
      allow_ips: '',
      deny_ips: '',
      rate_limits: {},
      rate_limit_message: '',
      drawing_modes: [],
      group: 'default',
      count: 1,
    });
    // The drawer closes and the list is asked again.
    await waitFor(() => expect(fake.callsTo('GET', '/api/token/').length).toBeGreaterThan(1));
  });

  it('refuses an expiry that does not parse', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'x');
    fill(field(drawer, '过期时间'), '2030-13-45 99:00');
    await submit(drawer);
    expect(await within(drawer).findByText('过期时间格式错误！')).toBeInTheDocument();
    expect(posted()).toHaveLength(0);
    fill(field(drawer, '过期时间'), '2030-01-02 03:04:05');
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body.expired_time).toBe(Math.floor(new Date(2030, 0, 2, 3, 4, 5).getTime() / 1000));
  });

  it('fills the expiry from the shortcuts: never, one hour, one day, one month of 30 days', async () => {
    const drawer = await openCreate();
    const expiry = field(drawer, '过期时间') as HTMLInputElement;
    /** Clicks a shortcut and checks the expiry it wrote is that far from the moment of the click. */
    const shortcut = async (name: string | RegExp, seconds: number) => {
      const before = nowSeconds();
      await userEvent.click(within(drawer).getByRole('button', { name }));
      const after = nowSeconds();
      expect(expiry.value).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const shown = dayjs(expiry.value, 'YYYY-MM-DD HH:mm:ss').unix();
      expect(shown).toBeGreaterThanOrEqual(before + seconds);
      expect(shown).toBeLessThanOrEqual(after + seconds);
      return shown;
    };
    await shortcut('一小时', 3600);
    await userEvent.click(within(drawer).getByRole('button', { name: '永不过期' }));
    expect(expiry.value).toBe('');
    await shortcut(/一\s*天/, 86_400);
    const month = await shortcut('一个月', 30 * 86_400);
    fill(field(drawer, '名称'), 'monthly');
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body.expired_time).toBe(month);
  });

  it('refuses a negative or fractional quota, and takes a quick option', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'q');
    const quota = field(drawer, '额度');
    fill(quota, '-5');
    await submit(drawer);
    expect(await within(drawer).findByText('额度不能为负数')).toBeInTheDocument();
    fill(quota, '1.5');
    expect(await within(drawer).findByText('额度必须是整数')).toBeInTheDocument();
    expect(posted()).toHaveLength(0);
    await userEvent.click(await screen.findByText('10 美元（5000000）'));
    expect(within(drawer).getByText('等价金额：$10.00')).toBeInTheDocument();
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body.remain_quota).toBe(5_000_000);
  });

  it('offers the count presets and requires a positive integer', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'batch');
    const count = field(drawer, '新建数量');
    fill(count, '0');
    await submit(drawer);
    expect(await within(drawer).findByText('新建数量必须是正整数')).toBeInTheDocument();
    fill(count, '2.5');
    expect(await within(drawer).findByText('新建数量必须是正整数')).toBeInTheDocument();
    for (const preset of ['10 个', '20 个', '30 个', '100 个']) expect(await screen.findByText(preset)).toBeInTheDocument();
    await userEvent.click(screen.getByText('20 个'));
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    // One request: the server names the 19 extras batch-xxxxxx itself.
    expect(posted()[0]!.body).toMatchObject({ name: 'batch', count: 20 });
  });

  it('turns the quota and count inputs off with unlimited quota', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'free');
    fill(field(drawer, '额度'), '-1');
    await userEvent.click(field(drawer, '无限额度'));
    await waitFor(() => expect(field(drawer, '额度')).toBeDisabled());
    expect(field(drawer, '新建数量')).toBeDisabled();
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body).toMatchObject({ unlimited_quota: true, remain_quota: 0, count: 1 });
  });

  it('sends model limits comma-separated and allowed IPs one per line', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'limited');
    const models = field(drawer, '模型限制列表');
    expect(models).toBeDisabled();
    await userEvent.click(field(drawer, '启用模型限制'));
    await waitFor(() => expect(models).not.toBeDisabled());
    await userEvent.click(models);
    await userEvent.click(await screen.findByTitle('gpt-4o'));
    await userEvent.click(await screen.findByTitle('claude-3'));
    fill(field(drawer, 'IP 白名单'), '10.0.0.1\n192.168.0.0/16');
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body).toMatchObject({ model_limits_enabled: true, model_limits: 'gpt-4o,claude-3', allow_ips: '10.0.0.1\n192.168.0.0/16' });
  });

  it('picks a group the admin allows', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'vip key');
    expect(within(drawer).getByText('默认为用户的分组')).toBeInTheDocument();
    await userEvent.click(field(drawer, '令牌分组'));
    await userEvent.click(await screen.findByText('VIP group'));
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body.group).toBe('vip');
  });

  it('disables the group with the hint when the admin allowed none', async () => {
    fake.ok('GET', '/api/user/self/groups', { default: { desc: 'your group', ratio: 1 } });
    const drawer = await openCreate();
    expect(await within(drawer).findAllByText('管理员未设置用户可选分组')).not.toHaveLength(0);
    expect(field(drawer, '令牌分组')).toBeDisabled();
    fill(field(drawer, '名称'), 'plain');
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body.group).toBe('');
  });

  it('shows the server message when creation fails', async () => {
    fake.fail('POST', '/api/token/', 'group: "gold" is not a group you may use');
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'x');
    await submit(drawer);
    expect(await screen.findByText('group: "gold" is not a group you may use')).toBeInTheDocument();
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });
});

describe('token form: rate limits', () => {
  it("sets the key's limits on create, blank ones unlimited", async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'limited');
    fill(field(drawer, '每分钟请求数 (RPM)'), '60');
    fill(field(drawer, '同时进行的请求数'), '4');
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body.rate_limits).toEqual({ rpm: 60, concurrency: 4 });
    // A key not made yet has nothing counted.
    expect(fake.callsTo('GET', '/api/limits/use')).toHaveLength(0);
  });

  it("shows what the key's limits count now when editing", async () => {
    fake.ok('GET', '/api/token/', { items: [token()], total: 1, page: 1, page_size: 10 });
    fake.ok('GET', '/api/token/5', token({ rate_limits: { rpm: 2, tpd: 50_000 } }));
    fake.ok('GET', '/api/limits/use', [
      { field: 'rpm', used: 2, reset_seconds: 41 },
      { field: 'rpd', used: 9, reset_seconds: 3600 },
      { field: 'tpm', used: 0, reset_seconds: 41 },
      { field: 'tpd', used: 12_345, reset_seconds: 3600 },
    ]);
    renderPage(<TokensPage />, { user });
    const row = (await screen.findByText('existing')).closest('tr') as HTMLElement;
    await userEvent.click(within(row).getByRole('button', { name: /编\s*辑/ }));
    const drawer = await screen.findByRole('dialog');
    await waitFor(() => expect(field(drawer, '每分钟请求数 (RPM)')).toHaveValue('2'));
    const itemOf = (label: string) => field(drawer, label).closest('.ant-form-item') as HTMLElement;
    expect(await within(itemOf('每分钟请求数 (RPM)')).findByText('当前已用 2')).toBeInTheDocument();
    expect(within(itemOf('每天 Token 数 (TPD)')).getByText('当前已用 12,345')).toBeInTheDocument();
    // No limit and nothing counted: no use line (the relay counts only limited windows).
    expect(within(itemOf('每分钟 Token 数 (TPM)')).queryByText(/当前已用/)).not.toBeInTheDocument();
    expect(within(itemOf('同时进行的请求数')).queryByText(/当前已用/)).not.toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/limits/use')[0]!.query)).toEqual({ scope: 'key', id: '5' });
  });

  it('shows the stored limits and sends them on update only when they changed', async () => {
    fake.ok('GET', '/api/token/', { items: [token()], total: 1, page: 1, page_size: 10 });
    fake.ok('GET', '/api/token/5', token({ rate_limits: { tpm: 10_000 } }));
    fake.on('PUT', '/api/token/', () => ({ body: { success: true, message: '', data: token() } }));
    renderPage(<TokensPage />, { user });
    const row = (await screen.findByText('existing')).closest('tr') as HTMLElement;
    await userEvent.click(within(row).getByRole('button', { name: /编\s*辑/ }));
    const drawer = await screen.findByRole('dialog');
    await waitFor(() => expect(field(drawer, '每分钟 Token 数 (TPM)')).toHaveValue('10000'));
    fill(field(drawer, '每天请求数 (RPD)'), '500');
    await submit(drawer);
    await waitFor(() => expect(fake.callsTo('PUT', '/api/token/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/token/')[0]!.body.rate_limits).toEqual({ tpm: 10_000, rpd: 500 });
  });
});

describe('token form: deny list, rate limit message, drawing modes', () => {
  it('sends the deny list, the rate limit with its message and the drawing modes on create', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'guarded');
    fill(field(drawer, 'IP 黑名单'), '203.0.113.0/24\n2001:db8:bad::/48\n');
    fill(field(drawer, '每分钟请求数 (RPM)'), '3');
    fill(field(drawer, '限流提示内容'), '  CI keys take 3 requests a minute ');
    await userEvent.click(field(drawer, '允许的绘图模式'));
    await userEvent.click(await screen.findByTitle('慢速（relax）'));
    await userEvent.click(await screen.findByTitle('极速（turbo）'));
    await submit(drawer);
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]!.body).toMatchObject({
      deny_ips: '203.0.113.0/24\n2001:db8:bad::/48',
      rate_limits: { rpm: 3 },
      rate_limit_message: 'CI keys take 3 requests a minute',
      drawing_modes: ['relax', 'turbo'],
    });
  });

  it('refuses a rate limit message longer than the server takes', async () => {
    const drawer = await openCreate();
    fill(field(drawer, '名称'), 'wordy');
    fill(field(drawer, '限流提示内容'), 'x'.repeat(256));
    await submit(drawer);
    expect(await within(drawer).findByText('提示内容不能超过 255 个字符')).toBeInTheDocument();
    expect(posted()).toHaveLength(0);
  });

  it('shows the stored fields when editing and sends the changes', async () => {
    fake.ok('GET', '/api/token/', { items: [token()], total: 1, page: 1, page_size: 10 });
    fake.ok('GET', '/api/token/5', token({ deny_ips: '198.51.100.7', rate_limits: { rpm: 5 }, rate_limit_message: 'five a minute', drawing_modes: ['fast'] }));
    fake.on('PUT', '/api/token/', () => ({ body: { success: true, message: '', data: token() } }));
    renderPage(<TokensPage />, { user });
    const row = (await screen.findByText('existing')).closest('tr') as HTMLElement;
    await userEvent.click(within(row).getByRole('button', { name: /编\s*辑/ }));
    const drawer = await screen.findByRole('dialog');
    await waitFor(() => expect(field(drawer, 'IP 黑名单')).toHaveValue('198.51.100.7'));
    expect(field(drawer, '限流提示内容')).toHaveValue('five a minute');
    expect(within(drawer).getByTitle('快速（fast）')).toBeInTheDocument();
    fill(field(drawer, 'IP 黑名单'), '198.51.100.0/24');
    fill(field(drawer, '限流提示内容'), '');
    await userEvent.click(field(drawer, '允许的绘图模式'));
    await userEvent.click(await screen.findByTitle('慢速（relax）'));
    await submit(drawer);
    await waitFor(() => expect(fake.callsTo('PUT', '/api/token/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/token/')[0]!.body).toMatchObject({
      id: 5,
      deny_ips: '198.51.100.0/24',
      rate_limit_message: '',
      drawing_modes: ['fast', 'relax'],
    });
    // The limits themselves did not change, so they are not sent again.
    expect(fake.callsTo('PUT', '/api/token/')[0]!.body.rate_limits).toBeUndefined();
  });
});

describe('token form: update', () => {
  it('loads the token, has no count, and sends the edit with its id', async () => {
    fake.ok('GET', '/api/token/', { items: [token()], total: 1, page: 1, page_size: 10 });
    fake.ok('GET', '/api/token/5', token({ expired_time: 1_900_000_000, model_limits_enabled: true, model_limits: 'gpt-4o,claude-3', allow_ips: '10.0.0.1' }));
    fake.on('PUT', '/api/token/', (call) => ({ body: { success: true, message: '', data: token({ name: call.body.name }) } }));
    renderPage(<TokensPage />, { user });
    const row = (await screen.findByText('existing')).closest('tr') as HTMLElement;
    await userEvent.click(within(row).getByRole('button', { name: /编\s*辑/ }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByText('更新令牌信息')).toBeInTheDocument();
    await waitFor(() => expect(field(drawer, '名称')).toHaveValue('existing'));
    expect(within(drawer).queryByLabelText('新建数量')).not.toBeInTheDocument();
    expect(field(drawer, '过期时间')).toHaveValue(dayjs.unix(1_900_000_000).format('YYYY-MM-DD HH:mm:ss'));
    fill(field(drawer, '名称'), 'renamed');
    await submit(drawer);
    expect(await screen.findByText('令牌更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/token/')[0]!.body).toEqual({
      id: 5,
      name: 'renamed',
      remain_quota: 1_000_000,
      expired_time: 1_900_000_000,
      unlimited_quota: false,
      model_limits_enabled: true,
      model_limits: 'gpt-4o,claude-3',
      allow_ips: '10.0.0.1',
      deny_ips: '',
      rate_limit_message: '',
      drawing_modes: [],
    });
    expect(fake.callsTo('PUT', '/api/token/')[0]!.query.get('status_only')).toBeNull();
  });
});
