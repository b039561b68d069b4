import { Readable } from 'node:stream';
import type { EgressRequestInit, EgressResponse } from '@aigw/platform';
import { EgressBlockedError } from '@aigw/platform';
import type { RelayContext } from '../src/context.js';
import { RelayError } from '../src/errors.js';
import { polledAnswer, type ReadAnswer } from '../src/polled-answer.js';
import { UpstreamAnswerError } from '../src/providers/shared/upstream-error.js';
import type { PolledStep, ProviderDefinition, UpstreamRequest } from '../src/providers/types.js';
import type { Attempt } from '../src/relay-call.js';
import { channel, context as providerContext } from './providers/support.js';

/**
 * The polled-answer loop (polled-answer.ts) against a fake egress client, on fake timers: it waits
 * what the provider asks before each follow-up, sends it authorized under the channel's egress
 * rule, returns the final answer, and fails the way relay-call.ts expects (UpstreamAnswerError for
 * the channel's failures, 504 past the deadline).
 */

const T0 = 1_700_000_000_000;
const DEADLINE = T0 + 10_000;
const poll = (id: number): UpstreamRequest => ({ method: 'GET', url: `https://upstream.test/jobs/${id}`, headers: { Authorization: 'Bearer k' } });

/** A job that is pending until `{state: 'done'}`; its final answer in the client's shape. */
function follow(operation: string, json: unknown, _context: unknown, sent: number): PolledStep {
  if (operation !== 'images') return { done: true };
  const job = json as { state: string; id: number; error?: string };
  if (job.state === 'failed') throw new UpstreamAnswerError({ message: job.error ?? 'failed', type: 'invalid_request_error', code: 'JobFailed' }, 400);
  if (job.state === 'done') return { done: true, answer: { data: [{ url: `https://upstream.test/${job.id}.png` }] } };
  return { done: false, next: poll(job.id), afterMs: 100 * (sent + 1) };
}

function provider(overrides: Partial<ProviderDefinition> = {}): ProviderDefinition {
  return {
    id: 'polled',
    operations: ['images'],
    streamUsage: false,
    passthrough: { request: () => poll(0), usage: () => null, follow },
    error: (status, text) => ({ message: `HTTP ${status}: ${text}`, type: 'upstream_error', code: String(status) }),
    ...overrides,
  };
}

const response = (statusCode: number, body: unknown): EgressResponse =>
  ({ statusCode, headers: { 'content-type': 'application/json' }, body: Readable.from([Buffer.from(JSON.stringify(body))]) }) as unknown as EgressResponse;

function answerOf(json: unknown): ReadAnswer {
  return { text: JSON.stringify(json), contentType: 'application/json', parsed: json, json: () => json };
}

function world(answers: Array<EgressResponse | Error | 'hang'>, definition = provider(), statusCodeMapping: Record<string, string> = {}) {
  const sent: Array<{ url: string; init: EgressRequestInit }> = [];
  const request = jest.fn((url: string, init: EgressRequestInit) => {
    sent.push({ url, init });
    const next = answers.shift();
    if (next === 'hang') {
      return new Promise<EgressResponse>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    if (!next) throw new Error('no answer left');
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  });
  const context = {
    egress: { request },
    limits: { maxUpstreamBodyBytes: 1024 * 1024 },
    accessTokens: { for: () => ({ accessToken: () => Promise.resolve('token-1') }) },
  } as unknown as RelayContext;
  const routing = channel({ id: 3, allow_private_network: true, status_code_mapping: statusCodeMapping });
  const attempt: Attempt = { channel: routing, provider: definition, context: providerContext({ channel: routing, key: 'k' }) };
  return { context, attempt, sent, request };
}

describe('polled answers', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it("returns the answer as it came when the provider has no follow, or says it is final (another operation's)", async () => {
    const first = answerOf({ state: 'pending', id: 1 });
    const plain = world([], provider({ passthrough: { request: () => poll(0), usage: () => null } }));
    await expect(polledAnswer(plain.context, plain.attempt, 'images', first, DEADLINE)).resolves.toBe(first);
    const other = world([]);
    await expect(polledAnswer(other.context, other.attempt, 'chat', first, DEADLINE)).resolves.toBe(first);
    expect(plain.request).not.toHaveBeenCalled();
    expect(other.request).not.toHaveBeenCalled();
  });

  it('waits what the provider asks before each follow-up, sends it under the channel egress rule, and returns the final answer', async () => {
    const { context, attempt, sent } = world([response(200, { state: 'pending', id: 1 }), response(200, { state: 'done', id: 1 })]);
    const result = polledAnswer(context, attempt, 'images', answerOf({ state: 'pending', id: 1 }), DEADLINE);

    await jest.advanceTimersByTimeAsync(99);
    expect(sent).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(1);
    // The second wait is the provider's second figure (200 ms).
    await jest.advanceTimersByTimeAsync(199);
    expect(sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);

    const final = await result;
    expect(final.json()).toEqual({ data: [{ url: 'https://upstream.test/1.png' }] });
    expect(final.parsed).toBe(final.json());
    expect(JSON.parse(final.text)).toEqual(final.json());
    expect(sent.map(({ url }) => url)).toEqual(['https://upstream.test/jobs/1', 'https://upstream.test/jobs/1']);
    expect(sent[0]!.init).toMatchObject({ method: 'GET', headers: { Authorization: 'Bearer k' }, privateNetwork: { allowed: true } });
    expect(sent[0]!.init.signal).toBeInstanceOf(AbortSignal);
  });

  it('authorizes every follow-up as the provider authorizes its calls (a signature, a token)', async () => {
    const authorize = jest.fn((request: UpstreamRequest) => Promise.resolve({ ...request, headers: { ...request.headers, 'X-Signed': 'yes' } }));
    const { context, attempt, sent } = world([response(200, { state: 'done', id: 2 })], provider({ authorize }));
    const result = polledAnswer(context, attempt, 'images', answerOf({ state: 'pending', id: 2 }), DEADLINE);
    await jest.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toMatchObject({ parsed: { data: [{ url: 'https://upstream.test/2.png' }] } });
    expect(authorize).toHaveBeenCalledTimes(1);
    expect(sent[0]!.init.headers).toEqual({ Authorization: 'Bearer k', 'X-Signed': 'yes' });
  });

  it('answers 504 at once when the next follow-up would come after the deadline', async () => {
    const { context, attempt, request } = world([]);
    const error = await polledAnswer(context, attempt, 'images', answerOf({ state: 'pending', id: 3 }), T0 + 100).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RelayError);
    expect(error).toMatchObject({ statusCode: 504, code: 'upstream_timeout' });
    expect(request).not.toHaveBeenCalled();
  });

  it('cuts a follow-up still running at the deadline: 504', async () => {
    const { context, attempt, sent } = world(['hang']);
    const result = polledAnswer(context, attempt, 'images', answerOf({ state: 'pending', id: 4 }), T0 + 1_000).catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(100);
    expect(sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(899);
    await jest.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toMatchObject({ statusCode: 504, code: 'upstream_timeout' });
    expect(sent[0]!.init.signal!.aborted).toBe(true);
  });

  it("throws a refused follow-up as the channel's failure: the provider's error, the channel's status mapping applied", async () => {
    const { context, attempt } = world([response(500, { message: 'busy' })], provider(), { '500': '503' });
    const result = polledAnswer(context, attempt, 'images', answerOf({ state: 'pending', id: 5 }), DEADLINE).catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(100);
    const error = await result;
    expect(error).toBeInstanceOf(UpstreamAnswerError);
    expect(error).toMatchObject({ statusCode: 503, error: { message: 'HTTP 500: {"message":"busy"}', code: '500' } });
  });

  it('throws an unreachable or blocked upstream, and a failed job, as the channel failure relay-call.ts reports', async () => {
    const unreachable = world([new Error('ECONNRESET')]);
    const cut = polledAnswer(unreachable.context, unreachable.attempt, 'images', answerOf({ state: 'pending', id: 6 }), DEADLINE).catch(
      (caught: unknown) => caught,
    );
    await jest.advanceTimersByTimeAsync(100);
    expect(await cut).toMatchObject({ statusCode: 0, error: { code: 'upstream_unreachable' } });

    const blocked = world([new EgressBlockedError('egress blocked: 10.0.0.1 is private', 'address', '10.0.0.1')]);
    const refused = polledAnswer(blocked.context, blocked.attempt, 'images', answerOf({ state: 'pending', id: 7 }), DEADLINE).catch(
      (caught: unknown) => caught,
    );
    await jest.advanceTimersByTimeAsync(100);
    expect(await refused).toMatchObject({ statusCode: 502, error: { code: 'upstream_address_blocked' } });

    const failing = world([response(200, { state: 'failed', id: 8, error: 'inspection failed' })]);
    const failed = polledAnswer(failing.context, failing.attempt, 'images', answerOf({ state: 'pending', id: 8 }), DEADLINE).catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(100);
    expect(await failed).toMatchObject({ statusCode: 400, error: { message: 'inspection failed', code: 'JobFailed' } });
  });

  it('answers 502 when a follow-up answers something that is not JSON', async () => {
    const notJson = { statusCode: 200, headers: {}, body: Readable.from([Buffer.from('<html>')]) } as unknown as EgressResponse;
    const { context, attempt } = world([notJson]);
    const result = polledAnswer(context, attempt, 'images', answerOf({ state: 'pending', id: 9 }), DEADLINE).catch((caught: unknown) => caught);
    await jest.advanceTimersByTimeAsync(100);
    expect(await result).toMatchObject({ statusCode: 502, code: 'bad_upstream_response' });
  });
});
