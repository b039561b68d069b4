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
const said: Record<Locale, { wrongPassword: string; usedCode: string }> = {
  'zh-CN': { wrongPassword: '用户名或密码错误，或用户已被封禁', usedCode: '兑换码无效或已被使用' },
  'en-US': { wrongPassword: 'username or password is wrong, or the user has been banned', usedCode: 'invalid or already used redemption code' },
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
    await page.getByText(said[locale].wrongPassword, { exact: true }).waitFor();
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
    await page.getByText(said[locale].usedCode, { exact: true }).waitFor();
    await screenshot(page, `messages-${locale}-used-code`);
    expect(errors).toEqual([]);
    await close();
  });
});
