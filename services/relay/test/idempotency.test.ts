// Idempotency-Key on inference (issue 19, docs/architecture.md section 5.10): a retry with the
// same key and body gets the first answer (a stream event by event) and is charged nothing more,
// also after the client dropped the first connection or while the first still runs; the same key
// with another body is 409; an answer too large to keep is 422 on the retry, never a second
// charge; a failed request lets its key go; uploads refuse the header.
import OpenAI from 'openai';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { reconcile } from '../../billing/src/reconcile';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(120_000);

describe.each(backends)('idempotency keys (%s)', (backend) => {
  let world: RelayWorld;
  let billing: DataSource;
  let keyNumber = 0;
  /** A key no other test uses. */
  const freshKey = () => `retry-${backend}-${++keyNumber}-${Date.now()}`;

  beforeAll(async () => {
    world = await startRelayWorld(backend, { userQuota: 10_000_000, env: { IDEMPOTENCY_MAX_ANSWER_BYTES: '16384' } });
    billing = await openBillingDatabase(world.gateway.env);
    await world.addChannel({
      name: 'main',
      models: 'mock-gpt,mock-slow,mock-slow-whole,mock-huge,mock-broken',
      model_mapping: JSON.stringify({
        'mock-slow': 'mock-gpt@chunks=30,delay=30,nousage',
        'mock-slow-whole': 'mock-gpt@chunks=30,latency=800',
        'mock-huge': 'mock-gpt@chunks=5000',
        'mock-broken': 'mock-gpt@status=400',
      }),
    });
    await world.waitForModel('mock-slow');
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const chat = (key: string | undefined, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      ...(signal ? { signal } : {}),
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
  const upstreamCalls = () => world.mock.requests.filter((entry) => entry.path === '/v1/chat/completions').length;
  const logsOf = (requestId: string) => billing.getRepository(LogEntity).findBy({ type: 2, request_id: requestId });

  it('replays a whole answer to a retry with the same key, charged once, through the official client', async () => {
    const key = freshKey();
    const client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
    const before = upstreamCalls();
    const body = { model: 'mock-gpt', messages: [{ role: 'user' as const, content: 'once only' }] };
    const first = await client.chat.completions.create(body, { headers: { 'Idempotency-Key': key } }).withResponse();
    const second = await client.chat.completions.create(body, { headers: { 'Idempotency-Key': key } }).withResponse();
    expect(second.data).toEqual(first.data);
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    const requestId = first.response.headers.get('x-oneapi-request-id')!;
    expect(second.response.headers.get('x-oneapi-request-id')).toBe(requestId);
    expect(upstreamCalls()).toBe(before + 1);
    await world.usageLog(requestId);
    expect(await logsOf(requestId)).toHaveLength(1);
  });

  it('replays a stream event by event, and refuses the key with another body (409)', async () => {
    const key = freshKey();
    const body = { model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'stream once' }] };
    const first = await chat(key, body);
    const firstText = await first.text();
    const second = await chat(key, body);
    expect(second.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(await second.text()).toBe(firstText);
    expect(firstText).toMatch(/data: \[DONE\]/);

    const other = await chat(key, { ...body, messages: [{ role: 'user', content: 'something else' }] });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ error: { code: 'idempotency_key_reused' } });
  });

  it('a client that drops the first stream gets the whole answer on its retry, charged exactly once', async () => {
    const key = freshKey();
    const body = { model: 'mock-slow', stream: true, messages: [{ role: 'user', content: 'do not lose this' }] };
    const before = upstreamCalls();
    const controller = new AbortController();
    const first = await chat(key, body, controller.signal);
    const requestId = first.headers.get('x-oneapi-request-id')!;
    const reader = first.body!.getReader();
    await reader.read();
    controller.abort();
    // The retry joins the first request, which runs on to its end without the client.
    const retry = await chat(key, body);
    const text = await retry.text();
    expect(retry.headers.get('x-oneapi-request-id')).toBe(requestId);
    // Every one of the 30 chunks of one word, though the client left after the first.
    expect((text.match(/hello/g) ?? []).length).toBe(30);
    expect(text).toMatch(/data: \[DONE\]/);
    expect(upstreamCalls()).toBe(before + 1);
    const log = await world.usageLog(requestId);
    expect(log.content).not.toMatch(/client disconnected/);
    expect(log.completion_tokens).toBeGreaterThanOrEqual(30);
    // The balance is what was granted less every recorded charge: this request's once.
    const charged = async () => (await billing.getRepository(LogEntity).findBy({ type: 2, user_id: world.user.id })).reduce((sum, row) => sum + row.quota, 0);
    await waitFor(async () => (await world.balance()) === 10_000_000 - (await charged()), 10_000, 'charged once');
    expect(await logsOf(requestId)).toHaveLength(1);
    expect(await reconcile(billing)).toEqual([]);
  });

  it('a client that drops a whole (non-stream) request gets its answer on the retry, charged exactly once', async () => {
    const key = freshKey();
    const body = { model: 'mock-slow-whole', stream: false, messages: [{ role: 'user', content: 'whole, once' }] };
    const before = upstreamCalls();
    const controller = new AbortController();
    const first = chat(key, body, controller.signal).catch((error: unknown) => error);
    // Gone while the upstream still composes the answer (its headers come after 800 ms).
    await waitFor(async () => upstreamCalls() === before + 1, 10_000, 'the first request upstream');
    controller.abort();
    expect(await first).not.toBeInstanceOf(Response);
    const retry = await chat(key, body);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const answer = (await retry.json()) as { choices: Array<{ message: { content: string } }> };
    expect((answer.choices[0]!.message.content.match(/hello/g) ?? []).length).toBe(30);
    expect(upstreamCalls()).toBe(before + 1);
    const requestId = retry.headers.get('x-oneapi-request-id')!;
    await world.usageLog(requestId);
    expect(await logsOf(requestId)).toHaveLength(1);
  });

  it('a retry while the first request still runs waits for it and gets its answer', async () => {
    const key = freshKey();
    const body = { model: 'mock-slow', stream: false, messages: [{ role: 'user', content: 'in flight' }] };
    const before = upstreamCalls();
    const [first, second] = await Promise.all([chat(key, body), chat(key, body)]);
    expect(await second.json()).toEqual(await first.json());
    expect(upstreamCalls()).toBe(before + 1);
    expect([first.headers.get('idempotent-replayed'), second.headers.get('idempotent-replayed')].filter(Boolean)).toHaveLength(1);
  });

  it('an answer too large to keep: its retry is 422, never run or charged again', async () => {
    const key = freshKey();
    const body = { model: 'mock-huge', messages: [{ role: 'user', content: 'a lot' }] };
    const first = await chat(key, body);
    expect(first.status).toBe(200);
    await first.text();
    const before = upstreamCalls();
    const retry = await chat(key, body);
    expect(retry.status).toBe(422);
    expect(await retry.json()).toMatchObject({ error: { code: 'idempotency_not_replayable' } });
    expect(upstreamCalls()).toBe(before);
  });

  it('a failed request lets its key go: the retry runs again', async () => {
    const key = freshKey();
    const body = { model: 'mock-broken', messages: [{ role: 'user', content: 'fails' }] };
    expect((await chat(key, body)).status).toBe(400);
    const before = upstreamCalls();
    expect((await chat(key, body)).status).toBe(400);
    expect(upstreamCalls()).toBe(before + 1);
  });

  it('refuses a malformed key, and the header on a multipart upload', async () => {
    const bad = await chat('has space', { model: 'mock-gpt', messages: [{ role: 'user', content: 'x' }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_idempotency_key' } });
    const form = new FormData();
    form.append('model', 'mock-gpt');
    form.append('file', new Blob([Buffer.from('RIFF')], { type: 'audio/wav' }), 'a.wav');
    const upload = await fetch(`${world.baseUrl}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'idempotency-key': freshKey() },
      body: form,
    });
    expect(upload.status).toBe(400);
    expect(await upload.json()).toMatchObject({ error: { code: 'idempotency_key_unsupported' } });
  });
});
