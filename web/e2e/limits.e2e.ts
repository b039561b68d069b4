import type { Locator, Page } from 'playwright-core';
import { startMockUpstream, type MockUpstream } from '../../tools/mock-upstream/server.mjs';
import { signIn, type ApiSession } from './support/api-client';
import { newContext, screenshot } from './support/browser';
import { loginThroughForm, watchPageErrors } from './support/console';
import { useConsoleHarness } from './support/harness';
import { eventually } from './support/wait';

// Usage limits end to end (docs/architecture.md section 5.9): root sets a key's requests per
// minute to 2 in the token drawer, the relay admits two calls with that key and refuses the third
// with 429 before it reaches the upstream, and the drawer, opened again, shows the two counted.

jest.setTimeout(120_000);

const MODEL = 'mock-gpt';
const TOKEN = 'limited key';
const RPM = 2;
const RPM_LABEL = '每分钟请求数 (RPM)';

const harness = useConsoleHarness();
let mock: MockUpstream;
let root: ApiSession;
let tokenId = 0;
let apiKey = '';

/** One chat call through the relay with the limited key. */
async function chat(): Promise<{ status: number; headers: Headers; body: { error?: { code?: string; message?: string } } }> {
  const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { error?: { code?: string; message?: string } } };
}

const tableRow = (page: Page, text: string): Locator => page.locator('tr.ant-table-row').filter({ has: page.getByText(text, { exact: true }) });
const dialogTitled = (page: Page, title: string): Locator => page.getByRole('dialog', { name: title });
/** The form item of a labelled field, where antd puts the field's extra line (the use); `has` is matched inside each item. */
const formItem = (scope: Locator, label: string): Locator => scope.locator('.ant-form-item').filter({ has: scope.page().getByLabel(label, { exact: true }) });

async function openTokenDrawer(page: Page): Promise<Locator> {
  await page.goto('/token');
  await tableRow(page, TOKEN)
    .getByRole('button', { name: /^编\s*辑$/ })
    .click();
  const drawer = dialogTitled(page, '更新令牌信息');
  // The form mounts once the token has loaded.
  await drawer.getByLabel('名称', { exact: true }).waitFor();
  return drawer;
}

beforeAll(async () => {
  mock = await startMockUpstream();
  const { server } = harness;
  root = await signIn(server.url, 'root', '123456');
  const options = await root.call<Array<{ key: string; value: string }>>('GET', '/api/option/');
  const ratios = JSON.parse(options.find((row) => row.key === 'ModelRatio')!.value) as Record<string, number>;
  const setOption = (key: string, value: string) => root.call('PUT', '/api/option/', { key, value });
  // The mock listens on loopback, which the egress guard refuses unless root allows it (rule R1);
  // a channel takes this default when it is created.
  await setOption('AllowPrivateNetworkUpstreams', 'true');
  // An unpriced model is refused; keep the built-in prices.
  await setOption('ModelRatio', JSON.stringify({ ...ratios, [MODEL]: 1 }));
  await root.call('POST', '/api/channel/', { type: 1, name: 'mock', key: 'sk-mock-upstream-key', base_url: mock.url, models: MODEL, group: 'default' });
  const created = await root.call<Array<{ id: number; key: string }>>('POST', '/api/token/', { name: TOKEN, unlimited_quota: true });
  tokenId = created[0]!.id;
  apiKey = created[0]!.key.startsWith('sk-') ? created[0]!.key : `sk-${created[0]!.key}`;
  // The relay learns channels from events: wait until it routes the model (this asks for no completion).
  await eventually(
    async () => {
      const response = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
      return (((await response.json()) as { data?: Array<{ id: string }> }).data ?? []).map((model) => model.id);
    },
    (models) => models.includes(MODEL),
    15_000,
    'the mock model routable',
  );
});
afterAll(async () => {
  await mock?.close();
});

describe('usage limits', () => {
  it("root limits a key to 2 requests a minute in the drawer, the third call is refused with 429, and the drawer shows the key's use", async () => {
    const context = await newContext(harness.browser, harness.server.url);
    const page = await context.newPage();
    const errors = watchPageErrors(page);
    await loginThroughForm(page, 'root', '123456');

    // Loading /token again also leaves the factory-password warning behind.
    let drawer = await openTokenDrawer(page);
    await drawer.getByText('速率限制', { exact: true }).waitFor();
    await drawer.getByLabel(RPM_LABEL, { exact: true }).fill(String(RPM));
    await drawer.getByRole('button', { name: /^提\s*交$/ }).click();
    await page.getByText('令牌更新成功！').waitFor();
    await drawer.waitFor({ state: 'hidden' });
    expect((await root.call<{ rate_limits: Record<string, number> }>('GET', `/api/token/${tokenId}`)).rate_limits).toEqual({ rpm: RPM });

    // Two admitted, each carrying the limit in OpenAI's headers; the third refused before the upstream.
    mock.reset();
    const answers = [await chat(), await chat(), await chat()];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    for (const admitted of answers.slice(0, 2)) expect(admitted.headers.get('x-ratelimit-limit-requests')).toBe(String(RPM));
    const refused = answers[2]!;
    expect(refused.body.error?.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(mock.requests.filter((request) => request.path === '/v1/chat/completions')).toHaveLength(2);

    // The server counts the two admitted calls for the key; the drawer shows it under the limit.
    const use = await root.call<Array<{ field: string; used: number }>>('GET', `/api/limits/use?scope=key&id=${tokenId}`);
    expect(use.find((entry) => entry.field === 'rpm')?.used).toBe(RPM);
    drawer = await openTokenDrawer(page);
    const rpm = formItem(drawer, RPM_LABEL);
    expect(await rpm.getByLabel(RPM_LABEL, { exact: true }).inputValue()).toBe(String(RPM));
    await rpm.getByText(`当前已用 ${RPM}`, { exact: true }).waitFor();
    await rpm.scrollIntoViewIfNeeded();
    await screenshot(page, 'limits-token-use');

    expect(errors).toEqual([]);
    await context.close();
  });
});
