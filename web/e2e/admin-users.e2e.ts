import type { Locator, Page } from 'playwright-core';
import { register } from './support/api-client';
import { newContext, screenshot } from './support/browser';
import { loginThroughForm, watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';

jest.setTimeout(120_000);

const harness = useConsoleHarness(async ({ server }) => {
  await register(server.url, 'alice', 'alice-password');
  await register(server.url, 'bob', 'bob-password1');
});

/** The users table row of `username`. */
const rowOf = (page: Page, username: string): Locator => page.locator('tr.ant-table-row').filter({ has: page.getByText(username, { exact: true }) });
const button = (row: Locator, label: RegExp) => row.getByRole('button', { name: label });

describe('the super admin', () => {
  it('signs in with the factory password and is warned to change it', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, 'root', '123456');
    await page.getByText('您正在使用默认密码！请立刻修改默认密码！').waitFor();
    expect(new URL(page.url()).pathname).toBe('/token');
    await screenshot(page, 'root-default-password-warning');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('promotes, disables and deregisters a user, each row taking the returned role and status', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, 'root', '123456');
    await page.goto('/user');
    const alice = rowOf(page, 'alice');
    await alice.waitFor();
    await alice.getByText('普通用户').waitFor();

    await button(alice, /提\s*升/).click();
    await alice.getByText('管理员', { exact: true }).waitFor();

    await button(alice, /禁\s*用/).click();
    await alice.getByText('已封禁').waitFor();
    await button(alice, /启\s*用/).waitFor();

    await button(alice, /注\s*销/).click();
    await page.getByRole('button', { name: /确\s*定/ }).click();
    await alice.getByText('已注销').waitFor();
    expect(await alice.getByRole('button').count()).toBe(0);
    await screenshot(page, 'root-manages-users');

    // The server agrees: alice can no longer sign in.
    const login = await fetch(`${harness.server.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'alice-password' }),
    });
    expect(((await login.json()) as { success: boolean }).success).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('an ordinary user', () => {
  it('cannot open admin pages and does not see them in the menu', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    await loginThroughForm(page, 'bob', 'bob-password1');
    const menu = page.locator('.ant-layout-sider');
    await menu.getByText('令牌').waitFor();
    for (const item of ['渠道', '兑换码', '用户管理']) expect(await menu.getByText(item, { exact: true }).count()).toBe(0);

    for (const path of ['/user', '/channel', '/redemption']) {
      await page.goto(path);
      await page.getByText('无权访问').waitFor();
    }
    await screenshot(page, 'user-refused-admin-page');

    // Only the personal tab of the settings.
    await page.goto('/setting?tab=system');
    await page.getByRole('tab', { name: '个人设置' }).waitFor();
    expect(await page.getByRole('tab', { name: '系统设置' }).count()).toBe(0);

    // And the server refuses the admin API to the same session.
    const status = await page.evaluate(async () => {
      const user = JSON.parse(localStorage.getItem('user')!) as { id: number };
      const response = await fetch('/api/user/', { headers: { 'New-Api-User': String(user.id) } });
      return response.status;
    });
    expect(status).toBe(403);
    await context.close();
  });
});
