import type { BrowserContext, Page } from 'playwright-core';
import { register, signIn } from './support/api-client';
import { newContext, screenshot } from './support/browser';
import { loginThroughForm, watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';

// Test X1 and rule R9 (docs/security.md): admin-written markdown and HTML
// (notice, home page, about, footer) and user-chosen names (display name, token name, channel
// name, model name) never run script in the console. Each page is checked twice: as served
// (sanitizer and CSP together), and with the CSP ignored, so the sanitizer must hold on its own.
// A script that ran would set window.__pwned or open an alert.

jest.setTimeout(120_000);

const PWN = 'window.__pwned=1';
const payloads = [
  `<img src=x onerror="${PWN}">`,
  `<script>${PWN}</script>`,
  `[markdown link](javascript:${PWN})`,
  `<svg onload="${PWN}"><circle r="4"></circle></svg>`,
  `<a href="javascript:${PWN}">html link</a>`,
  `<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>`,
  `<details open ontoggle="${PWN}"><summary>details</summary></details>`,
  `<form action="javascript:${PWN}"><button>form button</button></form>`,
].join('\n\n');

const HOME = `# Welcome home\n\nHarmless home text.\n\n${payloads}`;
const NOTICE = `**Harmless notice text**\n\n${payloads}`;
const ABOUT = `## About us\n\nHarmless about text.\n\n${payloads}`;
const FOOTER = `<span>Harmless footer text</span> <img src=x onerror="${PWN}"> <a href="javascript:${PWN}">footer link</a> <script>${PWN}</script>`;
// Names are shown as text; the display name is at most 20 characters, so it opens an alert instead.
const DISPLAY_NAME = '<svg/onload=alert()>';
const TOKEN_NAME = `<img src=x onerror="${PWN}">`;
const CHANNEL_NAME = `<img src=y onerror="${PWN}">`;
const MODEL_NAME = `<svg onload="${PWN}">`;

const harness = useConsoleHarness(async ({ server }) => {
  const root = await signIn(server.url, 'root', '123456');
  const options = await root.call<Array<{ key: string; value: string }>>('GET', '/api/option/');
  const modelRatio = JSON.parse(options.find((row) => row.key === 'ModelRatio')!.value) as Record<string, number>;
  for (const [key, value] of Object.entries({
    Notice: NOTICE,
    HomePageContent: HOME,
    About: ABOUT,
    Footer: FOOTER,
    ModelRatio: JSON.stringify({ ...modelRatio, [MODEL_NAME]: 1 }),
  })) {
    await root.call('PUT', '/api/option/', { key, value });
  }
  // A channel with a hostile name offering a hostile model (priced, so the pricing page lists it).
  await root.call('POST', '/api/channel/', { type: 1, name: CHANNEL_NAME, key: 'sk-unused', models: `gpt-4o-mini,${MODEL_NAME}`, group: 'default' });

  await register(server.url, 'mallory', 'mallory-pass1');
  const mallory = await signIn(server.url, 'mallory', 'mallory-pass1');
  await mallory.call('PUT', '/api/user/self', { display_name: DISPLAY_NAME });
  await mallory.call('POST', '/api/token/', { name: TOKEN_NAME, unlimited_quota: true });
});

interface Watched {
  page: Page;
  errors: string[];
  alerts: string[];
}

/** The shown element with this text (a closed dialog keeps its copy in the document). */
const visibleText = (page: Page, text: string) => page.getByText(text, { exact: true }).filter({ visible: true });

/** A page that records page errors and alerts (and dismisses them). */
async function watchedPage(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const errors = watchPageErrors(page);
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, errors, alerts };
}

/** Nothing ran, and nothing that could run is in the document (inline handlers, inline scripts, javascript: URLs, frames). */
async function expectInert({ page, errors, alerts }: Watched, where: string): Promise<void> {
  // Let failed images fire their error events and deferred handlers their chances.
  await page.waitForLoadState('networkidle');
  const found = await page.evaluate(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned,
      handlers: all
        .filter((element) => [...element.attributes].some((attribute) => attribute.name.toLowerCase().startsWith('on')))
        .map((element) => element.outerHTML.slice(0, 120)),
      inlineScripts: document.querySelectorAll('script:not([src])').length,
      javascriptUrls: all
        .flatMap((element) => ['href', 'src', 'action', 'formaction', 'xlink:href'].map((name) => element.getAttribute(name) ?? ''))
        .filter((value) => /^\s*javascript:/i.test(value)),
      frames: [...document.querySelectorAll('iframe')].map((frame) => frame.outerHTML.slice(0, 120)),
    };
  });
  expect({ where, ...found, alerts, errors }).toEqual({
    where,
    pwned: undefined,
    handlers: [],
    inlineScripts: 0,
    javascriptUrls: [],
    frames: [],
    alerts: [],
    errors: [],
  });
}

describe('the Content-Security-Policy', () => {
  it('comes with the console page, with no inline script allowed', async () => {
    for (const path of ['/', '/about', '/token']) {
      const response = await fetch(`${harness.server.url}${path}`);
      const policy = response.headers.get('content-security-policy') ?? '';
      const scriptSrc =
        policy
          .split(';')
          .map((part) => part.trim())
          .find((part) => part.startsWith('script-src')) ?? '';
      expect(scriptSrc).toMatch(/^script-src 'self'/);
      expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(policy).toMatch(/object-src 'none'/);
    }
  });
});

describe('the checks themselves (controls)', () => {
  /** Puts a raw, unsanitized handler into the page, as a sanitizer bug would. */
  const injectRaw = (page: Page) => page.evaluate((html) => document.body.insertAdjacentHTML('beforeend', html), `<img src=x onerror="${PWN}">`);

  it('see a script run when the CSP is ignored, so that mode really tests the sanitizer alone', async () => {
    const context = await newContext(harness.browser, harness.server.url, { bypassCSP: true });
    const page = await context.newPage();
    await page.goto('/about');
    await page.getByText('Harmless about text.').waitFor();
    await injectRaw(page);
    await page.waitForFunction(() => (window as unknown as { __pwned?: number }).__pwned === 1);
    await context.close();
  });

  it('see the served CSP block that same raw handler', async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    await page.goto('/about');
    await page.getByText('Harmless about text.').waitFor();
    const blocked = page.evaluate(
      () =>
        new Promise<string>((resolve) => document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), { once: true })),
    );
    await injectRaw(page);
    expect(await blocked).toMatch(/^script-src/);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await context.close();
  });
});

describe.each([
  { mode: 'as served', bypassCSP: false },
  { mode: 'with the CSP ignored (sanitizer alone)', bypassCSP: true },
])('hostile content, $mode', ({ bypassCSP }) => {
  const suffix = bypassCSP ? 'no-csp' : 'csp';

  it('the home page, its notice dialog, the about page and the footer render the text and run nothing', async () => {
    const context = await newContext(harness.browser, harness.server.url, { bypassCSP });
    const watched = await watchedPage(context);
    const { page } = watched;

    const response = await page.goto('/');
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    const notice = page.getByRole('dialog', { name: '系统公告' });
    await notice.getByText('Harmless notice text').waitFor();
    await page.getByRole('heading', { name: 'Welcome home' }).waitFor();
    await page.getByText('Harmless home text.').waitFor();
    await page.getByText('Harmless footer text').waitFor();
    await expectInert(watched, 'home with notice');
    await screenshot(page, `xss-home-notice-${suffix}`);

    // The links are left as text or lose their target: clicking them does nothing.
    await notice.getByText('markdown link').click();
    await notice
      .getByRole('button', { name: /关\s*闭/ })
      .last()
      .click();
    await notice.waitFor({ state: 'hidden' });
    for (const text of ['markdown link', 'html link', 'footer link']) await visibleText(page, text).click();
    expect(new URL(page.url()).pathname).toBe('/');
    await expectInert(watched, 'home after clicking the links');

    // Into the about page through the top menu (the same document: anything that ran stays seen).
    await page.locator('.ant-layout-header').getByText('关于', { exact: true }).click();
    await page.waitForURL('**/about');
    await page.getByRole('heading', { name: 'About us' }).waitFor();
    await page.getByText('Harmless about text.').waitFor();
    await visibleText(page, 'html link').click();
    await expectInert(watched, 'about');
    await screenshot(page, `xss-about-${suffix}`);
    await context.close();
  });

  it("the user's display name in the header and the token name in the list stay text", async () => {
    const context = await newContext(harness.browser, harness.server.url, { bypassCSP });
    const watched = await watchedPage(context);
    const { page } = watched;
    await loginThroughForm(page, 'mallory', 'mallory-pass1');
    await page.waitForURL('**/token');
    await page.locator('.ant-layout-header').getByText(DISPLAY_NAME).waitFor();
    await page.locator('tr.ant-table-row').getByText(TOKEN_NAME, { exact: true }).waitFor();
    await expectInert(watched, 'tokens');
    await screenshot(page, `xss-display-name-token-${suffix}`);

    // The hostile model's name on the pricing page.
    await page.goto('/pricing');
    await page.locator('tr.ant-table-row').getByText(MODEL_NAME, { exact: true }).waitFor();
    await expectInert(watched, 'pricing');
    await context.close();
  });

  it('root sees the names as text in the users and channels tables, and the settings previews run nothing', async () => {
    const context = await newContext(harness.browser, harness.server.url, { bypassCSP });
    const watched = await watchedPage(context);
    const { page } = watched;
    await loginThroughForm(page, 'root', '123456');

    await page.goto('/user');
    await page.locator('tr.ant-table-row').filter({ hasText: 'mallory' }).getByText(DISPLAY_NAME, { exact: true }).waitFor();
    await expectInert(watched, 'users');
    await screenshot(page, `xss-users-${suffix}`);

    await page.goto('/channel');
    await page.locator('tr.ant-table-row').getByText(CHANNEL_NAME, { exact: true }).waitFor();
    await expectInert(watched, 'channels');

    // The settings' live previews of the same texts.
    await page.goto('/setting?tab=other');
    await page.getByTestId('preview-Notice').getByText('Harmless notice text').waitFor();
    await page.getByTestId('preview-HomePageContent').getByText('Harmless home text.').waitFor();
    await page.getByTestId('preview-About').getByText('Harmless about text.').waitFor();
    await page.getByTestId('preview-Footer').getByText('Harmless footer text').waitFor();
    await expectInert(watched, 'settings previews');
    await screenshot(page, `xss-settings-previews-${suffix}`);
    await context.close();
  });
});
