import { newContext, screenshot } from './support/browser';
import { watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';

jest.setTimeout(150_000);

const harness = useConsoleHarness();

describe('a new user', () => {
  it('registers, signs in, uses the personal settings and signs out', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);

    // Register (the form checks first: too short a password is refused before any call).
    await page.goto('/register');
    await page.getByPlaceholder('请输入用户名').fill('carol');
    await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('short');
    await page.getByPlaceholder('再次输入密码').fill('short');
    await page.locator('form button[type=submit]').click();
    await page.getByText('密码长度不得小于 8 位！').waitFor();
    await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('carol-pass-1');
    await page.getByPlaceholder('再次输入密码').fill('carol-pass-1');
    await page.locator('form button[type=submit]').click();
    await page.waitForURL('**/login');
    await screenshot(page, 'accounts-registered');

    // Sign in.
    await page.getByPlaceholder('用户名或邮箱').fill('carol');
    await page.getByPlaceholder('密码', { exact: true }).fill('carol-pass-1');
    await page.locator('form button[type=submit]').click();
    await page.waitForURL('**/token');
    const userId = await page.evaluate(() => (JSON.parse(localStorage.getItem('user')!) as { id: number }).id);

    // Personal settings: the figures, an access token that really works, a password change.
    await page.locator('.ant-layout-sider').getByText('设置').click();
    await page.waitForURL('**/setting');
    await page.getByText('当前余额').waitFor();
    await page.getByText('邀请链接').waitFor();
    await page.getByRole('button', { name: /生成系统访问令牌/ }).click();
    const tokenInput = page.getByLabel('系统访问令牌');
    await tokenInput.waitFor();
    const accessToken = await tokenInput.inputValue();
    expect(accessToken).toMatch(/^\w{20,}$/);
    const self = await fetch(`${harness.server.url}/api/user/self`, { headers: { Authorization: accessToken, 'New-Api-User': String(userId) } });
    expect(((await self.json()) as { data: { username: string } }).data.username).toBe('carol');
    await screenshot(page, 'accounts-personal-settings');

    await page.getByRole('button', { name: /修改密码/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('原密码').fill('carol-pass-1');
    await dialog.getByLabel('新密码', { exact: true }).fill('carol-pass-2');
    await dialog.getByLabel('确认新密码').fill('carol-pass-2');
    await dialog.getByRole('button', { name: /确认修改/ }).click();
    await page.getByText('密码修改成功！').waitFor();

    // Sign out: back to /login, and the stored user is gone.
    await page.getByRole('button', { name: /退\s*出/ }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
    await page.goto('/setting');
    await page.waitForURL('**/login');

    // The new password is the one that works now.
    await page.getByPlaceholder('用户名或邮箱').fill('carol');
    await page.getByPlaceholder('密码', { exact: true }).fill('carol-pass-2');
    await page.locator('form button[type=submit]').click();
    await page.waitForURL('**/token');
    await screenshot(page, 'accounts-signed-in-again');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is sent back to the login page with the expiry message when the session ends', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    await page.goto('/login');
    // A stored user whose session the server does not know (an expired cookie).
    await page.evaluate(() =>
      localStorage.setItem(
        'user',
        JSON.stringify({ id: 99, username: 'ghost', display_name: '', role: 1, status: 1, group: 'default', quota: 0, used_quota: 0, request_count: 0 }),
      ),
    );
    await page.goto('/setting');
    await page.waitForURL('**/login?expired=true');
    await page.getByText('未登录或登录已过期，请重新登录！').waitFor();
    await screenshot(page, 'accounts-session-expired');
    await context.close();
  });
});
