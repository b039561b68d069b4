import { connect as tcpConnect } from 'node:net';
import type { IncomingMessage } from 'node:http';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import WebSocket from 'ws';
import type { DataSource } from 'typeorm';
import { counterKeys, holdKey } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The session time limit of this world (UPSTREAM_ANSWER_TIMEOUT_MS): every other session ends well before. */
const SESSION_LIMIT_MS = 6_000;

/**
 * The mock's deterministic realtime usage (tools/mock-upstream/README.md, "Realtime"): input text
 * = ceil(characters / 4) of the items added since the last response, input audio = ceil(bytes
 * appended / 4800), output text = chunks × words (4), output audio = 4 per word with audio.
 * Prices here: model ratio 1.5 (mock-realtime*), completion ratio 2 (mock-*), audio ratio 8,
 * audio completion ratio 2 (no entry), group ratio 1:
 *   round((text_in + text_out × 2 + audio_in × 8 + audio_out × 8 × 2) × 1.5)
 */
const charge = (textIn: number, textOut: number, audioIn: number, audioOut: number) => Math.round((textIn + textOut * 2 + audioIn * 8 + audioOut * 16) * 1.5);
/** What each response holds: PreConsumedQuota (500) tokens at the completion price. */
const HOLD = 500 * 2 * 1.5;

type Event = Record<string, unknown> & { type: string };

/** A client socket and what it received. */
interface Client {
  socket: WebSocket;
  /** X-Oneapi-Request-Id of the 101: the responses bill as `<id>-<n>`. */
  sessionId: string;
  events: Event[];
  /** Every message as received (text and binary). */
  frames: Array<{ data: Buffer; binary: boolean }>;
  /** Resolves with the `count`-th event of `type` (1 = the first). */
  next(type: string, count?: number): Promise<Event>;
  closed: Promise<{ code: number; reason: string }>;
}

describe('realtime (OpenAI Realtime API over WebSocket)', () => {
  let world: RelayWorld;
  let billing: DataSource;
  let wsBase: string;

  const text = (event: Event) => JSON.stringify(event);
  const itemCreate = (content: string) => ({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: content }] },
  });
  const logs = () => billing.getRepository(LogEntity);
  const spendable = () => world.gateway.env.infra.counters.get(counterKeys.user(world.user.id));
  const holdOf = (requestId: string) => world.gateway.env.infra.kv.get(holdKey(requestId));
  /** Live counter = database balance: every hold is back and every charge committed. */
  const reconciled = async (expected: number) => {
    await waitFor(async () => (await world.balance()) === expected && (await spendable()) === expected, 10_000, `balance ${expected}`);
  };
  const upgrades = () => world.mock.requests.filter((entry) => entry.method === 'GET' && entry.path === '/v1/realtime');

  function watch(socket: WebSocket, sessionId: Promise<string>): Promise<Client> {
    const events: Event[] = [];
    const frames: Client['frames'] = [];
    const waiters: Array<() => void> = [];
    socket.on('message', (data: Buffer, binary) => {
      frames.push({ data, binary });
      if (!binary) events.push(JSON.parse(data.toString()) as Event);
      for (const wake of waiters.splice(0)) wake();
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    const next = (type: string, count = 1) =>
      new Promise<Event>((resolve, reject) => {
        const look = () => {
          const found = events.filter((event) => event.type === type)[count - 1];
          if (found) return resolve(found);
          if (socket.readyState === WebSocket.CLOSED) return reject(new Error(`closed before ${type} #${count}`));
          waiters.push(look);
        };
        socket.once('close', () => setImmediate(look));
        look();
      });
    return sessionId.then((id) => ({ socket, sessionId: id, events, frames, next, closed }));
  }

  /** Opens a session with the key in the Authorization header, or in the subprotocol as browsers do. */
  async function open(model: string, auth: 'header' | 'protocol' = 'header', key = world.apiKey): Promise<Client> {
    const socket = new WebSocket(
      `${wsBase}/v1/realtime?model=${encodeURIComponent(model)}`,
      auth === 'protocol' ? ['realtime', `openai-insecure-api-key.${key}`, 'openai-beta.realtime-v1'] : [],
      auth === 'header' ? { headers: { authorization: `Bearer ${key}` } } : {},
    );
    const id = new Promise<string>((resolve, reject) => {
      socket.once('upgrade', (response) => resolve(String(response.headers['x-oneapi-request-id'])));
      socket.once('error', reject);
    });
    const opened = new Promise((resolve) => socket.once('open', resolve));
    const client = await watch(socket, id);
    await opened;
    return client;
  }

  /** A refused upgrade: its HTTP status and OpenAI-shaped body. */
  async function refused(
    model: string | null,
    key: string | null = world.apiKey,
  ): Promise<{ status: number; error: { code: string; message: string; type: string } }> {
    const socket = new WebSocket(`${wsBase}/v1/realtime${model === null ? '' : `?model=${encodeURIComponent(model)}`}`, {
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
    });
    socket.on('error', () => undefined);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      socket.once('unexpected-response', (_request, answer) => resolve(answer));
      socket.once('open', () => reject(new Error(`the upgrade of ${model} was accepted`)));
    });
    let body = '';
    for await (const chunk of response) body += String(chunk);
    return { status: response.statusCode!, ...(JSON.parse(body) as { error: { code: string; message: string; type: string } }) };
  }

  const token = async (body: Record<string, unknown>) => {
    const answer = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'realtime', unlimited_quota: true, ...body } })
    ).json();
    expect(answer.success).toBe(true);
    return answer.data[0].key as string;
  };

  beforeAll(async () => {
    world = await startRelayWorld('in-process', { env: { UPSTREAM_ANSWER_TIMEOUT_MS: String(SESSION_LIMIT_MS) } });
    billing = await openBillingDatabase(world.gateway.env);
    wsBase = world.baseUrl.replace(/^http/, 'ws');
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'mock-realtime*': 1.5 }));
    await world.setOption('AudioRatio', JSON.stringify({ 'mock-realtime*': 8 }));
    await waitFor(
      async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.AudioRatio?.['mock-realtime*'] === 8,
      10_000,
      'relay options',
    );
    // An Anthropic channel carries a model no realtime channel does: it cannot serve sessions.
    await world.addChannel({ name: 'anthropic-type', type: 14, models: 'mock-realtime-claude', priority: 10 });
    await world.addChannel({
      name: 'realtime',
      models: 'mock-realtime,mock-realtime-slow,mock-realtime-cut,mock-realtime-echo,mock-realtime-nousage,mock-realtime-hang,rt-unpriced',
      model_mapping: JSON.stringify({
        'mock-realtime-slow': 'mock-realtime@chunks=50,delay=100',
        'mock-realtime-cut': 'mock-realtime@cut=3',
        'mock-realtime-echo': 'mock-realtime@echo-headers',
        'mock-realtime-nousage': 'mock-realtime@nousage',
        'mock-realtime-hang': 'mock-realtime@hang',
      }),
    });
    await world.addChannel({
      name: 'azure',
      type: 3,
      other: '2025-04-01-preview',
      models: 'mock-realtime-azure,mock-realtime-down',
      model_mapping: JSON.stringify({ 'mock-realtime-azure': 'mock-realtime', 'mock-realtime-down': 'mock-realtime@status=503' }),
    });
    const closed = await world.addChannel({ name: 'private', models: 'mock-realtime-private' });
    expect((await world.gateway.call('PUT', '/api/channel/', { session: world.root, body: { id: closed, allow_private_network: false } })).json().success).toBe(
      true,
    );
    for (const model of ['mock-realtime', 'mock-realtime-claude', 'rt-unpriced', 'mock-realtime-private', 'mock-realtime-azure'])
      await world.waitForModel(model);
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  it('bills each response of a session once by the realtime formula, with the official client, and the balance reconciles', async () => {
    const before = await world.balance();
    // openai's realtime client always dials wss://; this world is plain HTTP, so its socket is a plain TCP one.
    const { port } = new URL(world.baseUrl);
    const client = new OpenAI({ apiKey: world.apiKey, baseURL: `${world.baseUrl}/v1`, maxRetries: 0 });
    const rt = new OpenAIRealtimeWS({ model: 'mock-realtime', options: { createConnection: () => tcpConnect(Number(port), '127.0.0.1') } }, client);
    const errors: unknown[] = [];
    rt.on('error', (error) => errors.push(error));
    const session = await watch(
      rt.socket,
      new Promise((resolve) => rt.socket.once('upgrade', (response) => resolve(String(response.headers['x-oneapi-request-id'])))),
    );
    await session.next('session.created');

    // Response 1: 40 characters of text (10 tokens), 9,600 bytes of audio (2 tokens); text and audio out.
    rt.send(itemCreate('Tell me about the gateway, in one breath') as never);
    rt.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(9600, 7).toString('base64') });
    rt.send({ type: 'response.create' });
    const first = await session.next('response.done');
    expect((first.response as { usage: unknown }).usage).toMatchObject({ input_tokens: 12, output_tokens: 4 + 16 });
    // Response 2: 20 characters (5 tokens), text only.
    rt.send(itemCreate('and once more, short') as never);
    rt.send({ type: 'response.create', response: { modalities: ['text'] } } as never);
    await session.next('response.done', 2);
    expect(session.events.filter((event) => event.type === 'response.text.delta')).toHaveLength(4);
    rt.close();
    await session.closed;
    expect(errors).toEqual([]);

    const id = session.sessionId;
    const one = await world.usageLog(`${id}-1`);
    expect(one).toMatchObject({ prompt_tokens: 12, completion_tokens: 20, quota: charge(10, 4, 2, 16), is_stream: true, model_name: 'mock-realtime' });
    expect(one.content).toContain('audio ratio 8.00, audio completion ratio 2.00');
    expect(JSON.parse(one.other)).toMatchObject({
      ws: true,
      audio: true,
      text_input: 10,
      text_output: 4,
      audio_input: 2,
      audio_output: 16,
      audio_ratio: 8,
      audio_completion_ratio: 2,
      model_ratio: 1.5,
      completion_ratio: 2,
      usage_source: 'upstream',
    });
    const two = await world.usageLog(`${id}-2`);
    expect(two).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, quota: charge(5, 4, 0, 0) });
    expect(JSON.parse(two.other)).not.toHaveProperty('audio');
    expect(charge(10, 4, 2, 16)).toBe(435);
    expect(charge(5, 4, 0, 0)).toBe(20);

    // The hold of a third response went back with no record; the counters and the database agree.
    await reconciled(before - 435 - 20);
    expect(await holdOf(`${id}-3`)).toBeNull();
    expect(await logs().countBy({ request_id: `${id}-3` })).toBe(0);
    // The upstream got the channel's key in its header, the model in its URL, and no beta header (a GA client asked for none).
    const upstream = upgrades().at(-1)!;
    expect(upstream.url).toBe('/v1/realtime?model=mock-realtime');
    expect(upstream.headers).toMatchObject({ authorization: 'Bearer mock-key' });
    expect(upstream.headers).not.toHaveProperty('openai-beta');
  });

  it('passes messages both ways unchanged (text and binary), keys in the subprotocol, and never hands the channel key to the client', async () => {
    const seen = world.mock.requests.length;
    const session = await open('mock-realtime-echo', 'protocol');
    expect(session.socket.protocol).toBe('realtime');
    const created = await session.next('session.created');
    const received = () => session.frames.map((frame) => frame.data.toString('latin1')).join('\n');
    // The mock echoed the headers it got: the key it was sent is redacted on the way back.
    expect(JSON.stringify(created)).toContain('[redacted]');
    expect(received()).not.toContain('mock-key');

    // Odd spacing, key order, non-ASCII: the upstream gets these exact bytes.
    const odd =
      '{ "item" : {"type":"message","role":"user","content":[{"type":"input_text","text":"héllo ✓ 🎧"}]},  "type":"conversation.item.create", "extra":[1,2.50] }';
    session.socket.send(odd);
    await session.next('conversation.item.created');
    const update = { type: 'session.update', session: { instructions: 'Speak like a gateway.', voice: 'verse' } };
    session.socket.send(JSON.stringify(update));
    const updated = await session.next('session.updated');
    expect(updated.session).toMatchObject(update.session);
    const binary = Buffer.from([0, 1, 2, 254, 255, 0x7b]);
    session.socket.send(binary);
    await waitFor(() => session.frames.some((frame) => frame.binary), 5_000, 'binary echo');
    expect(session.frames.find((frame) => frame.binary)!.data.equals(binary)).toBe(true);

    const messages = world.mock.requests.slice(seen).filter((entry) => entry.method === 'WS');
    expect(messages.map((entry) => entry.body)).toEqual([odd, JSON.stringify(update), binary]);
    // What the upstream saw: the channel key in a header, the mapped model, the beta interface the client asked for; never the client's key.
    const upgrade = world.mock.requests.slice(seen).find((entry) => entry.method === 'GET')!;
    expect(upgrade.url).toBe('/v1/realtime?model=mock-realtime%40echo-headers');
    expect(upgrade.headers).toMatchObject({ authorization: 'Bearer mock-key', 'openai-beta': 'realtime=v1' });
    expect(JSON.stringify(upgrade.headers)).not.toContain(world.apiKey.slice(3));
    session.socket.close();
    expect((await session.closed).code).toBe(1005);
    // Nothing was generated: the session's hold went back with no record.
    await waitFor(async () => (await holdOf(`${session.sessionId}-1`)) === null, 5_000, 'hold released');
    expect(await logs().countBy({ request_id: `${session.sessionId}-1` })).toBe(0);
  });

  it('refuses before the upgrade, in OpenAI shape, and the upstream never hears of it', async () => {
    const seen = upgrades().length;
    expect(await refused('mock-realtime', 'sk-notarealkeyatall000000000000000000000000000000')).toMatchObject({
      status: 401,
      error: { code: 'invalid_api_key' },
    });
    expect(await refused('mock-realtime', null)).toMatchObject({ status: 401, error: { type: 'authentication_error' } });
    const limited = await token({ model_limits_enabled: true, model_limits: 'mock-gpt' });
    expect(await refused('mock-realtime', limited)).toMatchObject({ status: 403, error: { code: 'model_not_allowed' } });
    const elsewhere = await token({ allow_ips: '10.1.2.0/24' });
    expect(await refused('mock-realtime', elsewhere)).toMatchObject({ status: 403, error: { code: 'ip_not_allowed' } });
    const poor = await token({ unlimited_quota: false, remain_quota: 100 });
    expect(await refused('mock-realtime', poor)).toMatchObject({ status: 403, error: { code: 'insufficient_token_quota', type: 'insufficient_quota' } });
    const claude = await refused('mock-realtime-claude');
    expect(claude).toMatchObject({ status: 503, error: { code: 'no_capable_channel' } });
    expect(claude.error.message).toContain('mock-realtime-claude');
    expect(await refused('rt-unpriced')).toMatchObject({ status: 400, error: { code: 'model_price_error' } });
    expect(await refused(null)).toMatchObject({ status: 400, error: { code: 'invalid_request' } });
    // The egress guard: this channel may not reach the loopback mock.
    const blocked = await refused('mock-realtime-private');
    expect(blocked).toMatchObject({ status: 502, error: { code: 'upstream_address_blocked' } });
    expect(blocked.error.message).not.toMatch(/127\.0\.0\.1|mock-key/);
    expect(upgrades().length).toBe(seen);
    // A plain GET is told to upgrade.
    const plain = await fetch(`${world.baseUrl}/v1/realtime?model=mock-realtime`, { headers: { authorization: `Bearer ${world.apiKey}` } });
    expect(plain.status).toBe(426);
  });

  it("holds a concurrency slot of the key's usage limits for as long as a session lasts", async () => {
    const key = await token({ rate_limits: { concurrency: 1 } });
    const first = await open('mock-realtime', 'header', key);
    expect(await refused('mock-realtime', key)).toMatchObject({ status: 429, error: { code: 'rate_limit_exceeded' } });
    first.socket.close();
    await first.closed;
    // Freed when the session ended (its billing steps done first).
    await waitFor(
      async () => {
        const socket = await open('mock-realtime', 'header', key).catch(() => null);
        socket?.socket.close();
        return socket !== null;
      },
      10_000,
      'slot freed',
    );
  });

  it("opens Azure's deployments, and answers an upstream's refusal of the handshake as HTTP, its hold released", async () => {
    const before = await world.balance();
    const session = await open('mock-realtime-azure');
    await session.next('session.created');
    const upgrade = world.mock.requests.filter((entry) => entry.method === 'GET' && entry.path === '/openai/realtime').at(-1)!;
    expect(upgrade.url).toBe('/openai/realtime?api-version=2025-04-01-preview&deployment=mock-realtime');
    expect(upgrade.headers).toMatchObject({ 'api-key': 'mock-key' });
    expect(upgrade.headers).not.toHaveProperty('authorization');
    session.socket.send(text({ type: 'response.create', response: { modalities: ['text'] } }));
    await session.next('response.done');
    session.socket.close();
    expect((await world.usageLog(`${session.sessionId}-1`)).quota).toBe(charge(0, 4, 0, 0));

    const down = await refused('mock-realtime-down');
    expect(down).toMatchObject({ status: 503, error: { type: 'upstream_error', message: expect.stringContaining('mock upstream: status 503 as asked') } });
    await reconciled(before - charge(0, 4, 0, 0));
  });

  it('answers an upgrade of another path as plain HTTP and closes its socket (an h2c upgrade, say)', async () => {
    const { port } = new URL(world.baseUrl);
    for (const upgrade of ['websocket', 'h2c']) {
      const socket = tcpConnect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += String(chunk)));
      const ended = new Promise((resolve) => socket.on('close', resolve));
      socket.write(
        `GET /v1/models HTTP/1.1\r\nHost: relay\r\nConnection: Upgrade\r\nUpgrade: ${upgrade}\r\nSec-WebSocket-Version: 13\r\n` +
          `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${world.apiKey}\r\n\r\n`,
      );
      await ended;
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(answer).toContain('"mock-realtime"');
    }
  });

  it('bills nothing for a response the client left in the middle of, and releases its hold', async () => {
    const before = await world.balance();
    const session = await open('mock-realtime-slow');
    await session.next('session.created');
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    await session.next('response.audio_transcript.delta');
    session.socket.close();
    await session.closed;
    await waitFor(async () => (await holdOf(`${session.sessionId}-1`)) === null, 5_000, 'hold released');
    await reconciled(before);
    // The upstream never finished it: no response.done, no record.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await logs().countBy({ request_id: `${session.sessionId}-1` })).toBe(0);
  });

  it('closes the client with an error code when the upstream drops the session, and releases the hold', async () => {
    const before = await world.balance();
    const session = await open('mock-realtime-cut');
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    const { code, reason } = await session.closed;
    expect(code).toBe(1014);
    expect(reason).toBe('upstream connection lost');
    expect(session.events.at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_closed', type: 'server_error' } });
    await waitFor(async () => (await holdOf(`${session.sessionId}-1`)) === null, 5_000, 'hold released');
    await reconciled(before);
    expect(await logs().countBy({ request_id: `${session.sessionId}-1` })).toBe(0);
  });

  it('bills a response the upstream reports no usage for as what was held for it', async () => {
    const session = await open('mock-realtime-nousage');
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    await session.next('response.done');
    session.socket.close();
    const log = await world.usageLog(`${session.sessionId}-1`);
    expect(log.quota).toBe(HOLD);
    expect(log.content).toContain('the upstream reported no usage');
    expect(JSON.parse(log.other)).toMatchObject({ usage_source: 'estimated', ws: true });
  });

  it('tells the client and closes both sockets when the next hold is refused, after billing the response', async () => {
    // Enough for the first hold (1,500) only: after the first response (435) 1,165 are left.
    const key = await token({ unlimited_quota: false, remain_quota: HOLD + 100 });
    const session = await open('mock-realtime', 'header', key);
    session.socket.send(text(itemCreate('Tell me about the gateway, in one breath')));
    session.socket.send(text({ type: 'input_audio_buffer.append', audio: Buffer.alloc(9600).toString('base64') }));
    session.socket.send(text({ type: 'response.create' }));
    const { code, reason } = await session.closed;
    expect(code).toBe(1008);
    expect(reason).toBe('insufficient quota');
    expect(session.events.map((event) => event.type)).toContain('response.done');
    expect(session.events.at(-1)).toMatchObject({ type: 'error', error: { type: 'insufficient_quota', code: 'insufficient_token_quota' } });
    expect((await world.usageLog(`${session.sessionId}-1`)).quota).toBe(435);
    expect(await holdOf(`${session.sessionId}-2`)).toBeNull();
  });

  it('ends a session at UPSTREAM_ANSWER_TIMEOUT_MS, so no hold outlives it', async () => {
    const started = Date.now();
    const session = await open('mock-realtime-hang');
    session.socket.send(JSON.stringify({ type: 'response.create' }));
    const { code } = await session.closed;
    expect(code).toBe(1008);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SESSION_LIMIT_MS - 500);
    expect(session.events.at(-1)).toMatchObject({ type: 'error', error: { code: 'session_expired' } });
    await waitFor(async () => (await holdOf(`${session.sessionId}-1`)) === null, 5_000, 'hold released');
  });
});
