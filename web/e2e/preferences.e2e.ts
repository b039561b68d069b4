import { newContext, screenshot } from './support/browser';
import { useConsoleHarness } from './support/harness';

jest.setTimeout(120_000);

const harness = useConsoleHarness();

describe('language and theme', () => {
  it('opens in Chinese, switches to English and keeps the choice after a reload', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByText('用户登录').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');

    await page.getByRole('button', { name: '语言' }).hover();
    await page.getByText('English', { exact: true }).click();
    await page.getByText('Log in', { exact: true }).first().waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en-US');
    expect(await page.evaluate(() => localStorage.getItem('locale'))).toBe('en-US');

    await page.reload();
    await page.getByPlaceholder('Username or email').waitFor();
    await screenshot(page, 'preferences-english');
    await context.close();
  });

  it('switches between day and dark mode and remembers it', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/login');
    await page.getByText('用户登录').waitFor();
    expect(await page.getAttribute('html', 'data-theme')).toBe('light');

    await page.getByTitle('夜间模式').click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    const background = await page.evaluate(() => getComputedStyle(document.querySelector('.ant-layout')!).backgroundColor);
    expect(background).not.toBe('rgb(245, 245, 245)');
    await screenshot(page, 'preferences-dark');

    await page.reload();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    expect(await page.evaluate(() => localStorage.getItem('theme-mode'))).toBe('dark');

    // Following the system: dark when the system prefers dark.
    await page.getByTitle('跟随系统').click();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await context.close();
  });
});
