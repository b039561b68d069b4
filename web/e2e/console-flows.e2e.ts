import type { Locator, Page } from 'playwright-core';
import { startMockUpstream, type MockUpstream } from '../../tools/mock-upstream/server.mjs';
import { register, signIn, type ApiSession } from './support/api-client';
import { newContext, screenshot } from './support/browser';
import { loginThroughForm, watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';
import { eventually } from './support/wait';

// The console's second part end to end, in one world: root adds a channel to the mock upstream
// and tests it, a user creates a token, chats in the playground, finds the charge in the logs,
// root makes a redemption code the user redeems in the wallet, and a guest reads the pricing.
// The steps go through the UI; the API sets things up and confirms the server agrees.

jest.setTimeout(120_000);

const MODEL = 'mock-gpt';
const MODEL_RATIO = 25;
const COMPLETION_RATIO = 3;
const QUOTA_PER_DOLLAR = 500_000;
const NEW_USER_QUOTA = 500_000;
const GIFT_QUOTA = 1_000_000;
const CHANNEL = 'mock channel';
const UPSTREAM_KEY = 'sk-mock-upstream-key';
const USER = 'dora';
const PASSWORD = 'dora-password1';
const PROMPT = 'Hello from the console e2e test';
// The mock's deterministic usage (tools/mock-upstream/README.md): prompt = ceil(characters / 4),
// completion = 4 chunks of one "hello" each.
const PROMPT_TOKENS = Math.ceil(PROMPT.length / 4);
const COMPLETION_TOKENS = 4;
const REPLY = 'hello hello hello hello';
// docs/compatibility.md section 3.5: quota = round((prompt + completion × CompletionRatio) × ModelRatio × GroupRatio), group default = 1.
const EXPECTED_QUOTA = Math.round((PROMPT_TOKENS + COMPLETION_TOKENS * COMPLETION_RATIO) * MODEL_RATIO * 1);

const dollars = (quota: number, digits = 2) => `$${(quota / QUOTA_PER_DOLLAR).toFixed(digits)}`;

interface LogRow {
  type: number;
  model_name: string;
  token_name: string;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  is_stream: boolean;
}
interface Paged<T> {
  items: T[];
  total: number;
}

const harness = useConsoleHarness();
let mock: MockUpstream;
let root: ApiSession;
let user: ApiSession;
/** The user's balance before the chat and the charge it made (set by the playground and log tests). */
let balanceBeforeChat = 0;
let charged = 0;

const selfQuota = async () => (await user.call<{ quota: number }>('GET', '/api/user/self')).quota;
const tableRow = (page: Page, text: string): Locator => page.locator('tr.ant-table-row').filter({ hasText: text });
/** A drawer or dialog by its title (antd labels the dialog with it). */
const dialogTitled = (page: Page, title: string): Locator => page.getByRole('dialog', { name: title });

beforeAll(async () => {
  // A little first-byte latency, so the channel test always measures more than 0 ms, and a pause
  // between chunks, so the playground visibly shows a reply that is still streaming: long enough
  // (about two seconds in all) for a browser on a loaded machine to render the unfinished reply.
  mock = await startMockUpstream({ defaults: 'latency=30,delay=600' });
  const { server } = harness;
  root = await signIn(server.url, 'root', '123456');
  const options = await root.call<Array<{ key: string; value: string }>>('GET', '/api/option/');
  const current = (key: string) => JSON.parse(options.find((row) => row.key === key)!.value) as Record<string, number>;
  const setOption = (key: string, value: string) => root.call('PUT', '/api/option/', { key, value });
  // The mock listens on loopback, which the egress guard refuses unless root allows it (rule R1).
  await setOption('AllowPrivateNetworkUpstreams', 'true');
  // Price the mock's model (an unpriced model is refused), keeping the built-in prices.
  await setOption('ModelRatio', JSON.stringify({ ...current('ModelRatio'), [MODEL]: MODEL_RATIO }));
  await setOption('CompletionRatio', JSON.stringify({ ...current('CompletionRatio'), [MODEL]: COMPLETION_RATIO }));
  await setOption('QuotaForNewUser', String(NEW_USER_QUOTA));
  await register(server.url, USER, PASSWORD);
  user = await signIn(server.url, USER, PASSWORD);
  await eventually(selfQuota, (quota) => quota === NEW_USER_QUOTA, 10_000, 'the new-user quota');
});
afterAll(async () => {
  await mock?.close();
});

describe('the console flows', () => {
  it('root adds a channel to the mock upstream and tests it from its row', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, 'root', '123456');
    await page.goto('/channel');
    await page.getByRole('button', { name: /添加渠道/ }).click();

    const drawer = dialogTitled(page, '创建新的渠道');
    await drawer.getByLabel('名称', { exact: true }).fill(CHANNEL);
    // A new channel starts as OpenAI in the default group.
    const field = (label: string) => drawer.locator('.ant-form-item').filter({ has: page.locator('label', { hasText: new RegExp(`^${label}$`) }) });
    await field('类型').getByText('OpenAI', { exact: true }).waitFor();
    await field('分组').getByText('default', { exact: true }).waitFor();
    await drawer.getByLabel('代理地址').fill(mock.url);
    // The mock is on loopback: the channel's own private-network switch (off for a new channel, rule R2).
    await drawer.getByLabel('允许访问内网', { exact: true }).click();
    await drawer.getByText('仅对你信任的内网上游', { exact: false }).waitFor();
    await drawer.getByLabel('密钥', { exact: true }).fill(UPSTREAM_KEY);
    await drawer.getByPlaceholder('输入自定义模型名称，多个用英文逗号分隔').fill(MODEL);
    await drawer.getByRole('button', { name: /^填\s*入$/ }).click();
    await drawer.getByRole('button', { name: /^提\s*交$/ }).click();
    await page.getByText('渠道创建成功！').waitFor();

    const row = tableRow(page, CHANNEL);
    await row.getByText('未测试').waitFor();
    for (const text of ['OpenAI', 'default', '已启用']) await row.getByText(text, { exact: true }).waitFor();

    // The server has what the form said.
    const channels = await root.call<Paged<{ id: number; name: string; type: number; base_url: string; models: string; group: string }>>(
      'GET',
      '/api/channel/?p=1&page_size=10',
    );
    const stored = channels.items.find((channel) => channel.name === CHANNEL)!;
    expect(stored).toMatchObject({ type: 1, base_url: mock.url, models: MODEL, group: 'default' });

    await row.getByRole('button', { name: /^测\s*试$/ }).click();
    await page.getByText(new RegExp(`通道 ${CHANNEL} 测试成功，耗时 \\d+\\.\\d{2} 秒。`)).waitFor();
    const shown = row.getByText(/^\d+\.\d{2} 秒$/);
    await shown.waitFor();

    // The row shows the time the server recorded, and the test really went to the mock with the key.
    const tested = await root.call<{ response_time: number }>('GET', `/api/channel/${stored.id}`);
    expect(tested.response_time).toBeGreaterThan(0);
    expect(await shown.textContent()).toBe(`${(tested.response_time / 1000).toFixed(2)} 秒`);
    const upstreamCall = mock.requests.find((request) => request.path === '/v1/chat/completions');
    expect(upstreamCall?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(upstreamCall?.body.model).toBe(MODEL);

    await screenshot(page, 'flows-channel-tested');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a user creates an unlimited token in the drawer and sees it in the list', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, USER, PASSWORD);
    expect(new URL(page.url()).pathname).toBe('/token');

    await page.getByRole('button', { name: /添加令牌/ }).click();
    const drawer = dialogTitled(page, '创建新的令牌');
    await drawer.getByLabel('名称', { exact: true }).fill('e2e token');
    await drawer.getByLabel('无限额度').click();
    await drawer.getByRole('button', { name: /^提\s*交$/ }).click();
    await page.getByText('令牌创建成功，请在列表页面点击复制获取令牌！').waitFor();

    const row = tableRow(page, 'e2e token');
    await row.getByText('已启用', { exact: true }).waitFor();
    await row.getByText('无限额度', { exact: true }).waitFor();
    await row.getByText('永不过期', { exact: true }).waitFor();

    const tokens = await user.call<Paged<{ name: string; unlimited_quota: boolean; status: number; expired_time: number }>>('GET', '/api/token/?p=1&size=10');
    expect(tokens.items.find((token) => token.name === 'e2e token')).toMatchObject({ unlimited_quota: true, status: 1, expired_time: -1 });

    await screenshot(page, 'flows-token-created');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the user chats with the mock model in the playground and gets the streamed reply', async () => {
    balanceBeforeChat = await selfQuota();
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, USER, PASSWORD);
    await page.goto('/playground');

    const modelSelect = page
      .locator('.ant-form-item')
      .filter({ has: page.getByText('模型', { exact: true }) })
      .locator('.ant-select');
    await modelSelect.getByText('gpt-4o-mini').waitFor();
    await modelSelect.click();
    await page
      .locator('.ant-select-dropdown .ant-select-item-option')
      .filter({ hasText: new RegExp(`^${MODEL}$`) })
      .click();
    await modelSelect.getByText(MODEL, { exact: true }).waitFor();

    mock.reset();
    await page.getByPlaceholder('输入消息，Enter 发送，Shift+Enter 换行').fill(PROMPT);
    await page.getByRole('button', { name: /发\s*送/ }).click();
    await page.locator('[data-role="user"]').getByText(PROMPT).waitFor();
    // Streamed: the reply shows while it is still coming (a buffered answer would jump to complete).
    await page.locator('[data-role="assistant"][data-state="incomplete"]').getByText('生成中').waitFor();
    const reply = page.locator('[data-role="assistant"][data-state="complete"]');
    await reply.getByText('已完成').waitFor();
    expect(await reply.locator('.ant-typography').last().textContent()).toBe(REPLY);

    // It went to the mock as a stream, with the user's message and the chosen model.
    const sent = mock.requests.find((request) => request.path === '/v1/chat/completions');
    expect(sent?.body).toMatchObject({ model: MODEL, stream: true, messages: [{ role: 'user', content: PROMPT }] });

    await screenshot(page, 'flows-playground-reply');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the user finds the charge in the logs, and the balance dropped by exactly that much', async () => {
    // Usage is billed once the stream has ended: wait for the log row.
    const logs = await eventually(
      () => user.call<Paged<LogRow>>('GET', '/api/log/self?p=1&page_size=10&type=2'),
      (page) => page.items.some((row) => row.model_name === MODEL),
      15_000,
      'the consume log',
    );
    const log = logs.items.find((row) => row.model_name === MODEL)!;
    expect(log).toMatchObject({
      prompt_tokens: PROMPT_TOKENS,
      completion_tokens: COMPLETION_TOKENS,
      quota: EXPECTED_QUOTA,
      is_stream: true,
      token_name: 'playground-default',
    });
    charged = log.quota;
    await eventually(selfQuota, (quota) => quota === balanceBeforeChat - EXPECTED_QUOTA, 10_000, 'the charged balance');

    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, USER, PASSWORD);
    await page.goto('/log');
    const row = tableRow(page, MODEL);
    await row.waitFor();
    for (const text of [dollars(EXPECTED_QUOTA, 6), String(PROMPT_TOKENS), String(COMPLETION_TOKENS), 'playground-default', '消费', '流']) {
      await row.getByText(text, { exact: true }).waitFor();
    }
    // The expanded row shows the formula with the same figures.
    await row.locator('.ant-table-row-expand-icon').click();
    await page
      .getByText(
        `分组倍率 1 × 模型倍率 ${MODEL_RATIO} × (提示 ${PROMPT_TOKENS} + 补全 ${COMPLETION_TOKENS} × 补全倍率 ${COMPLETION_RATIO}) / 500000 = $${(EXPECTED_QUOTA / QUOTA_PER_DOLLAR).toFixed(6).replace(/\.?0+$/, '')}`,
      )
      .waitFor();

    await screenshot(page, 'flows-usage-log');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('root creates a redemption code and the user redeems it in the wallet', async () => {
    // Root: the drawer, then the dialog with the new code.
    const admin = await newContext(harness.browser, harness.server.url);
    const adminPage = await admin.newPage();
    const adminErrors = watchPageErrors(adminPage);
    await loginThroughForm(adminPage, 'root', '123456');
    await adminPage.goto('/redemption');
    await adminPage.getByRole('button', { name: /添加兑换码/ }).click();
    const drawer = dialogTitled(adminPage, '创建新的兑换码');
    await drawer.getByLabel('名称', { exact: true }).fill('e2e gift');
    await drawer.getByLabel('额度', { exact: true }).fill(String(GIFT_QUOTA));
    await drawer.getByText(`等价金额：${dollars(GIFT_QUOTA)}`).waitFor();
    await drawer.getByRole('button', { name: /^提\s*交$/ }).click();
    const dialog = dialogTitled(adminPage, '兑换码创建成功，是否下载兑换码？');
    const codeBox = dialog.getByLabel('生成的兑换码');
    await codeBox.waitFor();
    const code = await codeBox.inputValue();
    expect(code).toMatch(/^[\w-]{16,}$/);
    await drawer.waitFor({ state: 'hidden' });
    await screenshot(adminPage, 'flows-redemption-created');
    await dialog.getByRole('button', { name: /^关\s*闭$/ }).click();
    const codeRow = tableRow(adminPage, 'e2e gift');
    await codeRow.getByText('未使用', { exact: true }).waitFor();
    await codeRow.getByText(dollars(GIFT_QUOTA), { exact: true }).waitFor();
    expect(adminErrors).toEqual([]);
    await admin.close();

    // The user: the wallet shows the balance, the code adds to it.
    const before = await selfQuota();
    expect(before).toBe(NEW_USER_QUOTA - charged);
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, USER, PASSWORD);
    await page.goto('/topup');
    const balance = page.locator('.ant-statistic').filter({ hasText: '当前余额' });
    await balance.getByText(dollars(before), { exact: true }).waitFor();
    await page.getByPlaceholder('请输入兑换码').fill(code);
    await page.getByRole('button', { name: /^兑\s*换$/ }).click();
    await page.getByText(`兑换成功！已添加额度：${dollars(GIFT_QUOTA)}`).waitFor();
    await balance.getByText(dollars(before + GIFT_QUOTA), { exact: true }).waitFor();
    await screenshot(page, 'flows-wallet-redeemed');

    // The server agrees: the balance grew by the code's quota, and the code is used, by this user.
    expect(await selfQuota()).toBe(before + GIFT_QUOTA);
    const codes = await root.call<Paged<{ name: string; status: number; used_user_id: number }>>('GET', '/api/redemption/?p=1&page_size=10');
    expect(codes.items.find((row) => row.name === 'e2e gift')).toMatchObject({ status: 3, used_user_id: user.userId });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a guest sees the model with its price and the login prompt on the pricing page', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await page.goto('/pricing');
    await page.getByText('您当前看到的是默认分组的价格，登录后可查看您所在分组的价格。').waitFor();
    const row = tableRow(page, MODEL);
    for (const text of ['按量计费', `模型倍率：${MODEL_RATIO}`, `补全倍率：${COMPLETION_RATIO}`, '分组倍率：1'])
      await row.getByText(text, { exact: true }).waitFor();
    // docs/product.md section 10: prompt price = model ratio × 2 × group ratio dollars per 1M tokens; completion × the completion ratio.
    await row.getByText(`提示 $${MODEL_RATIO * 2} / 1M tokens`, { exact: true }).waitFor();
    await row.getByText(`补全 $${MODEL_RATIO * 2 * COMPLETION_RATIO} / 1M tokens`, { exact: true }).waitFor();
    await screenshot(page, 'flows-guest-pricing');

    await page.getByRole('link', { name: '去登录' }).click();
    await page.waitForURL('**/login');
    expect(errors).toEqual([]);
    await context.close();
  });
});
