import type { Browser } from 'playwright-core';
import { launchBrowser } from './browser';
import { startServer, type RunningServer } from './server';

/** What every e2e file runs against: the compiled all-in-one server and one browser. */
export interface ConsoleHarness {
  server: RunningServer;
  browser: Browser;
}

/**
 * Starts the server and the browser before the file's tests (together: they are independent)
 * and stops both after them. `prepare` runs once both are up (accounts, options, fixtures);
 * `env` is added to the server's environment (e.g. a shorter TASK_POLL_INTERVAL_MS).
 * The fields are filled in by `beforeAll`, so read them inside tests and hooks only.
 */
export function useConsoleHarness(prepare?: (harness: ConsoleHarness) => Promise<void>, options: { env?: Record<string, string> } = {}): ConsoleHarness {
  const harness = {} as ConsoleHarness;
  beforeAll(async () => {
    [harness.server, harness.browser] = await Promise.all([startServer(options.env), launchBrowser()]);
    await prepare?.(harness);
  });
  afterAll(async () => {
    await harness.browser?.close();
    await harness.server?.stop();
  });
  return harness;
}
