import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Flags that keep Chromium off the network on a closed machine and quiet in CI. */
const quietArgs = ['--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];

/**
 * The browser: a system Chromium when CHROMIUM_PATH names one, otherwise the Chromium that
 * @sparticuz/chromium ships inside its npm package (installed by `npm install`, nothing
 * downloaded), unpacked by the e2e project's global setup.
 */
export async function launchBrowser(): Promise<Browser> {
  const systemBrowser = process.env.CHROMIUM_PATH;
  if (systemBrowser) {
    return chromium.launch({ executablePath: systemBrowser, headless: true, args: ['--no-sandbox', '--disable-gpu', ...quietArgs] });
  }
  const executablePath = process.env.E2E_CHROMIUM_EXECUTABLE;
  if (!executablePath) throw new Error('no browser: run the e2e tests through jest (its global setup unpacks Chromium) or set CHROMIUM_PATH');
  // Its flags are tuned for one page per serverless call; --single-process would end the whole
  // browser when a test closes its first context.
  const packagedArgs = (JSON.parse(process.env.E2E_CHROMIUM_ARGS ?? '[]') as string[]).filter((arg) => arg !== '--single-process');
  return chromium.launch({ executablePath, headless: true, args: [...packagedArgs, ...quietArgs] });
}

/**
 * A fresh browser context (own cookies and storage) with clipboard access, as a person would have.
 * `bypassCSP` ignores the server's Content-Security-Policy, for tests that must show a defence
 * other than the CSP (the sanitizer) holds on its own.
 */
export async function newContext(
  browser: Browser,
  baseURL: string,
  options: { viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, viewport: options.viewport ?? { width: 1280, height: 800 }, bypassCSP: options.bypassCSP ?? false });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  return context;
}

const outputDir = path.resolve(__dirname, '..', '..', 'test-output');

/** Saves a full-page screenshot under web/test-output/ (kept out of git). */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(outputDir, { recursive: true });
  const file = path.join(outputDir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
