import type { Page } from 'playwright-core';

/** Signs in through the login form and waits for the console to leave /login. */
export async function loginThroughForm(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByPlaceholder(/用户名或邮箱|Username or email/).fill(username);
  await page.getByPlaceholder(/^(密码|Password)$/).fill(password);
  await page.locator('form button[type=submit]').click();
  await page.waitForURL((url) => url.pathname !== '/login');
}

/** Collects uncaught page errors so a test can assert there were none. */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
