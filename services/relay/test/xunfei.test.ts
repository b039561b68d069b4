import http from 'node:http';
import OpenAI from 'openai';
import type { EventPayload } from '@aigw/contracts';
import { waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../../tools/mock-upstream/server.mjs';
import { sparkCredentials } from '../src/providers/xunfei/api.js';
import { signSparkUrl } from '../src/providers/xunfei/sign.js';
import { xunfeiProvider } from '../src/providers/xunfei/index.js';
import { channel, context } from './providers/support.js';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's count (tools/mock-upstream/README.md): ceil(characters / 4); 4 chunks of one word by default. */
const mockTokens = (text: string) => Math.ceil(text.length / 4);
const MOCK_COMPLETION = 4;
const ANSWER = 'hello hello hello hello';

/** The app the mock's Spark route knows (tools/mock-upstream/README.md, "iFlytek Spark"). */
const APP_ID = 'mock-spark-app';
const API_SECRET = 'mock-spark-api-secret';
const API_KEY = 'mock-spark-api-key';
const KEY = `${APP_ID}|${API_SECRET}|${API_KEY}`;

/**
 * iFlytek Spark (18) channels through the relay, against the mock's Spark route, which checks the
 * signed socket URL as iFlytek does, with the official `openai` client: what goes upstream over the
 * socket, what the client gets streamed and whole (the stream folded), what is billed, how
 * refusals and in-stream errors are reported, and that a client leaving closes the socket. Model
 * ratio 1, completion ratio 2 (relay-world): a charge is prompt + 2 x completion.
 */
describe.each(backends)('iFlytek Spark through the relay (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  const ids: Record<string, number> = {};
  const failures: Array<EventPayload<'relay.channel.failed'>> = [];

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    const socketBase = world.mock.url.replace(/^http:/, 'ws:');
    // Spark's message names no model, so a channel's param_override carries the mock's options (a `mock` field).
    const channels: Array<[string, Record<string, unknown>]> = [
      ['spark', { key: KEY, base_url: socketBase, other: 'v3.5', models: 'mock-spark' }],
      // No version set: the model names it (SparkDesk-v1.1); an http base_url is taken as ws.
      ['spark-lite', { key: KEY, other: '', models: 'mock-spark-lite', model_mapping: JSON.stringify({ 'mock-spark-lite': 'SparkDesk-v1.1' }) }],
      ['spark-wrong', { key: `${APP_ID}|not-the-secret|${API_KEY}`, base_url: socketBase, other: 'v3.5', models: 'mock-spark-wrong' }],
      ['spark-foreign-app', { key: `another-app|${API_SECRET}|${API_KEY}`, base_url: socketBase, other: 'v3.5', models: 'mock-spark-foreign' }],
      ['spark-moderated', { key: KEY, base_url: socketBase, other: 'v4.0', models: 'mock-spark-moderated', param_override: '{"mock":"spark-code=10013"}' }],
      ['spark-slow', { key: KEY, base_url: socketBase, other: 'v3.5', models: 'mock-spark-slow', param_override: '{"mock":"chunks=40,delay=100"}' }],
    ];
    for (const [name, fields] of channels) ids[name] = await world.addChannel({ name, type: 18, ...fields });
    await Promise.all(
      ['mock-spark', 'mock-spark-lite', 'mock-spark-wrong', 'mock-spark-foreign', 'mock-spark-moderated', 'mock-spark-slow'].map((m) => world.waitForModel(m)),
    );
    await world.gateway.env.infra.bus.subscribe(
      'relay.channel.failed',
      async (event) => void failures.push(event.data as EventPayload<'relay.channel.failed'>),
      {},
    );
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;
  /** What the mock's Spark route received at `path` since `from`: the upgrades (GET), the messages (WS) and the closes (WS-CLOSE). */
  const received = (path: string, method: string, from = 0) =>
    world.mock.requests.slice(from).filter((entry) => entry.path === path && entry.method === method);
  const failureOf = (channelId: number) => failures.find((failure) => failure.channel_id === channelId);
  const question = 'Say hello to the gateway, please.';
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: question },
  ];

  /** A refused call: the client's error; the balance is where it was (the hold released, nothing charged). */
  async function refused(model: string, stream = false) {
    const before = await world.balance();
    const failure = await (async () => {
      const answer = await client.chat.completions.create({ model, messages, ...(stream ? { stream: true } : {}) });
      if (stream) for await (const _chunk of answer as AsyncIterable<unknown>) void _chunk;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    await waitFor(async () => (await world.balance()) === before, 5_000, 'hold released, nothing charged');
    return failure as InstanceType<typeof OpenAI.APIError>;
  }

  it('streams a chat over a signed socket: the message Spark takes, the text, the usage asked for, billed by its usage', async () => {
    const from = world.mock.requests.length;
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'mock-spark', stream: true, stream_options: { include_usage: true }, messages, temperature: 0.5, max_tokens: 64 })
      .withResponse();
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    const prompt = mockTokens('Be brief.' + question);
    expect({ text, finish }).toEqual({ text: ANSWER, finish: 'stop' });
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION });

    // The upgrade the mock verified: the signed URL carries the host, the date and the APIKey's signature, never the secret.
    const upgrade = received('/v3.5/chat', 'GET', from).at(-1)!;
    const query = new URL(upgrade.url, world.mock.url).searchParams;
    expect(query.get('host')).toBe(new URL(world.mock.url).host);
    expect(Math.abs(Date.parse(query.get('date')!) - Date.now())).toBeLessThan(60_000);
    expect(Buffer.from(query.get('authorization')!, 'base64').toString('utf8')).toMatch(
      new RegExp(`^api_key="${API_KEY}", algorithm="hmac-sha256", headers="host date request-line", signature="[A-Za-z0-9+/]+={0,2}"$`),
    );
    expect(JSON.stringify(upgrade)).not.toContain(API_SECRET);
    expect(received('/v3.5/chat', 'WS', from).at(-1)!.body).toEqual({
      header: { app_id: APP_ID },
      parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 64 } },
      payload: { message: { text: [...messages] } },
    });
    // Spark closes the socket once it has answered.
    await waitFor(async () => received('/v3.5/chat', 'WS-CLOSE', from).length > 0, 5_000, 'socket closed');
    expect(received('/v3.5/chat', 'WS-CLOSE', from)[0]!.body).toEqual({ code: 1000, frames: MOCK_COMPLETION });

    const log = await world.usageLog(requestIdOf(response));
    expect(log).toMatchObject({
      channel_id: ids.spark,
      is_stream: true,
      prompt_tokens: prompt,
      completion_tokens: MOCK_COMPLETION,
      quota: prompt + 2 * MOCK_COMPLETION,
    });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('shows the usage chunk only to a client that asked for it, and bills Spark’s usage either way', async () => {
    const { data: stream, response } = await client.chat.completions.create({ model: 'mock-spark', stream: true, messages }).withResponse();
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe(ANSWER);
    expect(sawUsage).toBe(false);
    const log = await world.usageLog(requestIdOf(response));
    expect(log).toMatchObject({ prompt_tokens: mockTokens('Be brief.' + question), completion_tokens: MOCK_COMPLETION });
    expect(JSON.parse(log.other).usage_source).toBe('upstream');
  });

  it('answers a whole chat with the stream folded into one completion, billed by Spark’s usage', async () => {
    const { data: chat, response } = await client.chat.completions.create({ model: 'mock-spark', messages }).withResponse();
    const prompt = mockTokens('Be brief.' + question);
    expect(chat).toMatchObject({
      object: 'chat.completion',
      id: expect.stringMatching(/@dx-mock$/),
      choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: MOCK_COMPLETION, total_tokens: prompt + MOCK_COMPLETION },
    });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      channel_id: ids.spark,
      is_stream: false,
      prompt_tokens: prompt,
      completion_tokens: MOCK_COMPLETION,
      quota: prompt + 2 * MOCK_COMPLETION,
    });
  });

  it('takes the version from the model when the channel names none (SparkDesk-v1.1: Spark Lite, no system role) and an http base_url as ws', async () => {
    const from = world.mock.requests.length;
    const { data: chat, response } = await client.chat.completions.create({ model: 'mock-spark-lite', messages }).withResponse();
    expect(chat.choices[0]?.message.content).toBe(ANSWER);
    expect(received('/v1.1/chat', 'WS', from).at(-1)!.body).toEqual({
      header: { app_id: APP_ID },
      parameter: { chat: { domain: 'lite' } },
      payload: { message: { text: [{ role: 'user', content: `Be brief.\n\n${question}` }] } },
    });
    const prompt = mockTokens(`Be brief.\n\n${question}`);
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({
      channel_id: ids['spark-lite'],
      prompt_tokens: prompt,
      quota: prompt + 2 * MOCK_COMPLETION,
    });
  });

  it('refuses a key with the wrong APISecret at the handshake (401, streamed and whole), charges nothing, and reports an authentication failure', async () => {
    const from = world.mock.requests.length;
    const whole = await refused('mock-spark-wrong');
    expect(whole.status).toBe(401);
    expect(whole.message).toContain('HMAC signature does not match');
    const streamed = await refused('mock-spark-wrong', true);
    expect(streamed.status).toBe(401);
    // The gateway refused the upgrade: no message ever went over a socket.
    expect(received('/v3.5/chat', 'GET', from).length).toBeGreaterThanOrEqual(2);
    expect(received('/v3.5/chat', 'WS', from)).toEqual([]);
    await waitFor(async () => failureOf(ids['spark-wrong']!) !== undefined, 10_000, 'channel failure reported');
    expect(failureOf(ids['spark-wrong']!)).toMatchObject({ status_code: 401, error_type: 'authentication_error', message: 'HMAC signature does not match' });
  });

  it('reports an error code inside the answer: moderation (10013) as the client’s 400, an app without the licence (11200) as an authentication failure', async () => {
    const moderated = await refused('mock-spark-moderated');
    expect(moderated.status).toBe(400);
    expect(moderated.code).toBe('10013');
    expect(moderated.message).toContain('InputIllegalError:(10013)');
    await waitFor(async () => failureOf(ids['spark-moderated']!) !== undefined, 10_000, 'moderation reported');
    expect(failureOf(ids['spark-moderated']!)).toMatchObject({ status_code: 400, error_type: 'invalid_request_error', error_code: '10013' });

    // Streamed, the answer has begun: the error comes as an error event and the stream ends; nothing was delivered, nothing is charged.
    const { data: stream, response } = await client.chat.completions.create({ model: 'mock-spark-moderated', stream: true, messages }).withResponse();
    const broken = await (async () => {
      for await (const _chunk of stream) void _chunk;
    })().catch((error: unknown) => error);
    expect(broken).toBeInstanceOf(OpenAI.APIError);
    expect(broken).toMatchObject({ error: { code: '10013', type: 'invalid_request_error' } });
    expect(await world.usageLog(requestIdOf(response))).toMatchObject({ quota: 0, completion_tokens: 0 });

    const foreign = await refused('mock-spark-foreign');
    expect(foreign.status).toBe(401);
    expect(foreign.message).toContain('AppIdNoAuthError:(11200)');
    await waitFor(async () => failureOf(ids['spark-foreign-app']!) !== undefined, 10_000, 'licence error reported');
    expect(failureOf(ids['spark-foreign-app']!)).toMatchObject({ status_code: 401, error_type: 'authentication_error', error_code: '11200' });
  });

  it('closes the socket to Spark when the client leaves mid-stream, and bills what was streamed', async () => {
    const from = world.mock.requests.length;
    const { data: stream, response } = await client.chat.completions.create({ model: 'mock-spark-slow', stream: true, messages }).withResponse();
    let chunks = 0;
    for await (const _chunk of stream) {
      void _chunk;
      if (++chunks === 2) break; // the client stops reading and its connection is closed
    }
    await waitFor(async () => received('/v3.5/chat', 'WS-CLOSE', from).length > 0, 5_000, 'socket to the mock closed');
    const closed = received('/v3.5/chat', 'WS-CLOSE', from)[0] as RecordedRequest;
    // Not Spark's own close after the 40th message: the relay dropped the socket early.
    expect(closed.body.code).not.toBe(1000);
    expect(closed.body.frames).toBeLessThan(40);
    const log = await world.usageLog(requestIdOf(response));
    expect(log.content).toContain('client disconnected');
    expect(log.completion_tokens).toBeGreaterThanOrEqual(2);
    expect(log.completion_tokens).toBeLessThan(40);
    expect(log.quota).toBe(log.prompt_tokens + 2 * log.completion_tokens);
  });

  it('tests a channel over the socket (a folded one-word chat), and names the refusal of a wrong secret', async () => {
    const test = async (id: number) => (await world.gateway.call('POST', `/api/channel/test/${id}`, { session: world.root })).json();
    const from = world.mock.requests.length;
    expect(await test(ids.spark!)).toMatchObject({ success: true });
    expect(received('/v3.5/chat', 'WS', from).at(-1)!.body).toEqual({
      header: { app_id: APP_ID },
      parameter: { chat: { domain: 'generalv3.5', max_tokens: 16 } },
      payload: { message: { text: [{ role: 'user', content: 'hi' }] } },
    });
    expect(await test(ids['spark-wrong']!)).toMatchObject({ success: false, message: expect.stringContaining('HMAC signature does not match') });
    expect(await test(ids['spark-moderated']!)).toMatchObject({ success: false, message: expect.stringContaining('InputIllegalError:(10013)') });
  });
});

/**
 * The mock refuses what iFlytek refuses, so a relay test that passes proves the signing: the
 * provider's own signer against the fake, with the secret, the clock and the host wrong.
 */
describe("the Spark socket's signature, checked by the mock as iFlytek checks it", () => {
  let mock: MockUpstream;
  beforeAll(async () => {
    mock = await startMockUpstream({ maxRecorded: 0 });
  });
  afterAll(async () => {
    await mock.close();
  });

  /** The handshake's outcome (101, or the refusal's status and JSON) for the URL the provider builds and signs with `key`, the clock at `at`. */
  async function handshake(key: string, at: number, mutate: (url: URL) => void = () => {}): Promise<{ status: number; body: unknown }> {
    const ctx = context({ key, channel: channel({ type: 18, other: 'v3.5', base_url: mock.url }) });
    const built = xunfeiProvider.chat!.request({ messages: [{ role: 'user', content: 'hi' }] }, ctx);
    const url = new URL(signSparkUrl(built.url, sparkCredentials(key), new Date(at)).replace(/^ws:/, 'http:'));
    mutate(url);
    const headers = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    return new Promise((resolve, reject) => {
      const request = http.request(url, { headers });
      request.once('upgrade', (_response, socket) => {
        socket.destroy();
        resolve({ status: 101, body: null });
      });
      request.once('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
      request.once('error', reject);
      request.end();
    });
  }

  it('upgrades a URL signed with the APISecret within five minutes, and refuses the wrong secret, a stale date and another host', async () => {
    expect(await handshake(KEY, Date.now())).toEqual({ status: 101, body: null });
    expect(await handshake(`${APP_ID}|not-the-secret|${API_KEY}`, Date.now())).toEqual({ status: 401, body: { message: 'HMAC signature does not match' } });
    expect(await handshake(KEY, Date.now() - 6 * 60_000)).toEqual({
      status: 403,
      body: { message: 'HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication' },
    });
    expect(await handshake(KEY, Date.now(), (url) => url.searchParams.set('host', 'spark-api.xf-yun.com'))).toEqual({
      status: 401,
      body: { message: 'HMAC signature does not match' },
    });
    expect(await handshake(`${APP_ID}|${API_SECRET}|an-unknown-key`, Date.now())).toEqual({
      status: 401,
      body: { message: 'HMAC signature cannot be verified' },
    });
    expect(await handshake(KEY, Date.now(), (url) => url.searchParams.delete('authorization'))).toEqual({ status: 401, body: { message: 'Unauthorized' } });
  });
});
