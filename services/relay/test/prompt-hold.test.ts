// The hold takes the prompt's bound, never a tokenizer pass (issue 16 item 2, docs/architecture.md
// section 5 step 3); a request whose upstream reports no usage is still charged and recorded at
// the exact count, and an Anthropic-format client of a converted stream is told that count.
import { waitFor } from '@aigw/platform/testing';
import { chatPromptBound, countChatPrompt } from '../src/tokenizer/index.js';
import { messagesOperation } from '../src/operations/index.js';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

const MODEL = 'mock-nousage';

/** Prose, CJK and emoji: a prompt whose bytes are several times its tokens. */
const messages = [
  { role: 'system', content: 'Answer in one line. 一行で答えてください。' },
  { role: 'user', content: 'Why is the sky blue? 🌈 '.repeat(20) },
];

describe('prompt hold', () => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    await world.addChannel({
      name: 'nousage',
      models: `${MODEL},mock-long`,
      // 600 chunks of one token without usage: an answer that outruns a small balance (stream-budget.test.ts).
      model_mapping: JSON.stringify({ [MODEL]: 'mock-gpt@nousage', 'mock-long': 'mock-gpt@chunks=600,delay=1,nousage' }),
    });
    await world.waitForModel(MODEL);
    await world.waitForModel('mock-long');
  });
  afterAll(async () => {
    await world?.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    fetch(`${world.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('uses a prompt whose bound (what is held) is well above its count', () => {
    // What the tests below rely on: charging the bound would show.
    expect(chatPromptBound(messages)).toBeGreaterThan(2 * countChatPrompt(messages, MODEL));
  });

  it.each([false, true])('charges and records the exact prompt count, never the bound (stream: %s)', async (stream) => {
    const before = await world.balance();
    const response = await post('/v1/chat/completions', { model: MODEL, stream, messages });
    expect(response.status).toBe(200);
    await response.text();
    const log = await world.usageLog(response.headers.get('x-oneapi-request-id')!);

    expect(log.prompt_tokens).toBe(countChatPrompt(messages, MODEL));
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(JSON.parse(log.other).usage_source).toBe('estimated');
    // Ratio 1, completion ratio 2: the charge is the count's, and the rest of the hold went back.
    expect(log.quota).toBe(log.prompt_tokens + 2 * log.completion_tokens);
    await waitFor(async () => (await world.balance()) === before - log.quota, 10_000, 'balance settled at the charge');
  });

  it('tells an Anthropic-format client of a converted stream the exact input tokens', async () => {
    const body = { model: MODEL, max_tokens: 50, stream: true, system: messages[0]!.content, messages: [{ role: 'user', content: messages[1]!.content }] };
    const response = await post('/v1/messages', body);
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; message?: { usage: { input_tokens: number } }; usage?: { input_tokens: number } });
    const exact = messagesOperation.estimatePrompt(body, MODEL);
    expect(exact).toBeLessThan(messagesOperation.boundPrompt(body, MODEL));
    expect(events.find((event) => event.type === 'message_start')?.message?.usage.input_tokens).toBe(exact);
    expect(events.find((event) => event.type === 'message_delta')?.usage?.input_tokens).toBe(exact);
    const log = await world.usageLog(response.headers.get('x-oneapi-request-id')!);
    expect(log.prompt_tokens).toBe(exact);
  });

  it('meters a stream against its hold by the exact count before stopping it where the money ends', async () => {
    // Ten tokens held for the answer; the prompt's bound is about four times its count.
    await world.setOption('PreConsumedQuota', 10);
    const story = [{ role: 'user', content: 'Tell a long story about the sea and the ships on it. '.repeat(20) }];
    const exact = countChatPrompt(story, 'mock-long');
    const bound = chatPromptBound(story);
    // Enough for the hold (the bound and 10 tokens at completion ratio 2), and 100 more.
    const balance = bound + 20 + 100;
    const answer = (await world.gateway.call('PUT', '/api/user/', { session: world.root, body: { id: world.user.id, quota: balance } })).json();
    expect(answer).toMatchObject({ success: true });
    await waitFor(async () => (await world.balance()) === balance, 10_000, `balance ${balance}`);

    const response = await post('/v1/chat/completions', { model: 'mock-long', stream: true, messages: story });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('insufficient_quota');
    const log = await world.usageLog(response.headers.get('x-oneapi-request-id')!);
    expect(log.prompt_tokens).toBe(exact);
    expect(log.quota).toBe(balance);
    // Metered by the bound alone, the stream would have stopped near (balance - bound) / 2 = 60
    // tokens; by the count, the balance pays for about (balance - exact) / 2.
    expect(log.completion_tokens).toBeGreaterThanOrEqual(Math.floor((balance - exact) / 2));
    expect(log.completion_tokens).toBeLessThan(600);
    await waitFor(async () => (await world.balance()) === 0, 10_000, 'balance at zero');
  });

  it('admits a request the exact count can pay for though its bound cannot: near the end of the money the prompt is counted once', async () => {
    await world.setOption('PreConsumedQuota', 10);
    const story = [{ role: 'user', content: 'A short tale of a lighthouse keeper and a storm. '.repeat(20) }];
    const exact = countChatPrompt(story, MODEL);
    const bound = chatPromptBound(story);
    // Between the two holds: the bound's (bound + 10 tokens at completion ratio 2) does not fit, the count's does.
    const balance = exact + 20 + Math.floor((bound - exact) / 2);
    expect(balance).toBeLessThan(bound + 20);
    const answer = (await world.gateway.call('PUT', '/api/user/', { session: world.root, body: { id: world.user.id, quota: balance } })).json();
    expect(answer).toMatchObject({ success: true });
    await waitFor(async () => (await world.balance()) === balance, 10_000, `balance ${balance}`);

    const response = await post('/v1/chat/completions', { model: MODEL, max_tokens: 10, messages: story });
    expect(response.status).toBe(200);
    await response.text();
    const log = await world.usageLog(response.headers.get('x-oneapi-request-id')!);
    expect(log.prompt_tokens).toBe(exact);
  });
});
