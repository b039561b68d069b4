import type { Page } from 'playwright-core';
import { register, signIn, type ApiSession } from './support/api-client';
import { newContext, screenshot } from './support/browser';
import { loginThroughForm, watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';

// What the server says reaches the console in the console's language: a refused sign-in, a used
// redemption code and a channel the server refuses, each in zh-CN and en-US, with a screenshot of
// each (web/test-output/messages-*.png). The words are the server's (the console shows its answer).

jest.setTimeout(120_000);

type Locale = 'zh-CN' | 'en-US';

const USER = 'mei';
const PASSWORD = 'mei-password1';

/** The server's words, as packages/contracts/src/messages/ has them. */
const said: Record<Locale, { wrongPassword: string; usedCode: string; mappingValue: string }> = {
  'zh-CN': { wrongPassword: '用户名或密码错误，或用户已被封禁', usedCode: '兑换码无效或已被使用', mappingValue: 'model_mapping：“gpt-4o”的值必须是字符串' },
  'en-US': {
    wrongPassword: 'username or password is wrong, or the user has been banned',
    usedCode: 'invalid or already used redemption code',
    mappingValue: 'model_mapping: the value of "gpt-4o" must be a string',
  },
};

/** The channel form's words the test looks for, in the console's language. */
const form: Record<Locale, { add: RegExp; title: string; name: string; key: string; models: string; fill: RegExp; mapping: string; submit: RegExp }> = {
  'zh-CN': {
    add: /添加渠道/,
    title: '创建新的渠道',
    name: '名称',
    key: '密钥',
    models: '输入自定义模型名称，多个用英文逗号分隔',
    fill: /^填\s*入$/,
    mapping: '模型重定向',
    submit: /^提\s*交$/,
  },
  'en-US': {
    add: /Add channel/,
    title: 'Create a channel',
    name: 'Name',
    key: 'Key',
    models: 'Enter custom model names, separated by commas',
    fill: /^Add$/,
    mapping: 'Model mapping',
    submit: /^Submit$/,
  },
};

const harness = useConsoleHarness();
let root: ApiSession;
let usedCode = '';

beforeAll(async () => {
  const { server } = harness;
  root = await signIn(server.url, 'root', '123456');
  await register(server.url, USER, PASSWORD);
  const user = await signIn(server.url, USER, PASSWORD);
  usedCode = (await root.call<string[]>('POST', '/api/redemption/', { name: 'spent', quota: 1000, count: 1 }))[0]!;
  await user.call('POST', '/api/user/topup', { key: usedCode });
});

/** Waits for the toast saying `text` and for its entrance to finish (it fades in), so a screenshot shows it. */
async function toast(page: Page, text: string): Promise<void> {
  const notice = page.locator('.ant-message-notice').filter({ hasText: text });
  await notice.getByText(text, { exact: true }).waitFor();
  await notice.evaluate((element) => Promise.all(element.getAnimations({ subtree: true }).map((animation) => animation.finished)));
}

/** A page of a fresh context whose console speaks `locale` from its first load. */
async function pageIn(locale: Locale): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await newContext(harness.browser, harness.server.url);
  await context.addInitScript((chosen) => localStorage.setItem('locale', chosen), locale);
  const page = await context.newPage();
  return { page, errors: watchPageErrors(page), close: () => context.close() };
}

describe.each<Locale>(['zh-CN', 'en-US'])('server messages in %s', (locale) => {
  it('a wrong password', async () => {
    const { page, errors, close } = await pageIn(locale);
    await page.goto('/login');
    await page.getByPlaceholder(/用户名或邮箱|Username or email/).fill(USER);
    await page.getByPlaceholder(/^(密码|Password)$/).fill('not-the-password');
    await page.locator('form button[type=submit]').click();
    await toast(page, said[locale].wrongPassword);
    await screenshot(page, `messages-${locale}-wrong-password`);
    expect(errors).toEqual([]);
    await close();
  });

  it('a redemption code that was used already', async () => {
    const { page, errors, close } = await pageIn(locale);
    await loginThroughForm(page, USER, PASSWORD);
    await page.goto('/topup');
    await page.getByPlaceholder(/^(请输入兑换码|Enter a redemption code)$/).fill(usedCode);
    await page.getByRole('button', { name: /^(兑\s*换|Redeem)$/ }).click();
    await toast(page, said[locale].usedCode);
    await screenshot(page, `messages-${locale}-used-code`);
    expect(errors).toEqual([]);
    await close();
  });

  it('a channel form the server refuses (a model mapping to something not a name: valid JSON, so only the server can tell)', async () => {
    const { page, errors, close } = await pageIn(locale);
    const words = form[locale];
    await loginThroughForm(page, 'root', '123456');
    await page.goto('/channel');
    await page.getByRole('button', { name: words.add }).click();
    const drawer = page.getByRole('dialog', { name: words.title });
    await drawer.getByLabel(words.name, { exact: true }).fill(`refused ${locale}`);
    await drawer.getByLabel(words.key, { exact: true }).fill('sk-never-used');
    await drawer.getByPlaceholder(words.models).fill('gpt-4o');
    await drawer.getByRole('button', { name: words.fill }).click();
    await drawer.getByLabel(words.mapping, { exact: true }).fill('{"gpt-4o": true}');
    await drawer.getByRole('button', { name: words.submit }).click();
    await toast(page, said[locale].mappingValue);
    await screenshot(page, `messages-${locale}-channel-refused`);
    // Nothing was written.
    const channels = await root.call<{ items: Array<{ name: string }> }>('GET', '/api/channel/?p=1&page_size=100');
    expect(channels.items.map((channel) => channel.name)).not.toContain(`refused ${locale}`);
    expect(errors).toEqual([]);
    await close();
  });
});
