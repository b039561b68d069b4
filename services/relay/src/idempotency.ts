import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { leaseState, type Kv } from '@aigw/platform';
import { callerOf } from './caller.js';
import { holdLifetimeMs, type RelayContext } from './context.js';
import { RelayError } from './errors.js';
import { answerHeaders } from './streaming.js';

/**
 * `Idempotency-Key` on inference (docs/architecture.md section 5.10): a client that retries
 * after a dropped connection sends the same key, and gets the answer of the first request
 * instead of a second one (and a second charge). Keyed per API key and kept 24 hours in the Kv
 * store, so replicas share them:
 *
 * - a new key runs the request once and keeps its answer (a stream event by event); a client
 *   that leaves does not cut the upstream answer then: it runs to its end, is charged once and
 *   kept for the retry;
 * - the same key and the same body: the kept answer is replayed, charged nothing; a request still
 *   in flight is waited for, then replayed;
 * - the same key with another body: 409;
 * - an answer larger than IDEMPOTENCY_MAX_ANSWER_BYTES is not kept: its retry is answered 422
 *   "not replayable", never run (and charged) again;
 * - a request that failed (an error status, nothing charged) keeps nothing: the key may be used again.
 */

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/** How often a retry looks whether the request it joined has finished. */
const JOIN_POLL_MS = 200;

type Entry =
  | { state: 'running'; fingerprint: string; requestId: string; owner: string; until: number }
  | { state: 'done'; fingerprint: string; requestId: string; status: number; contentType: string; stream: boolean; chunks: string[]; base64: boolean }
  | { state: 'too-large'; fingerprint: string; requestId: string };

/** What a request with a key writes, captured for the retry (bounded). */
export class AnswerRecorder {
  private readonly chunks: string[] = [];
  private bytes = 0;
  private overflow = false;
  private status = 200;
  private contentType = 'application/json';
  private stream = false;
  private base64 = false;

  constructor(private readonly maxBytes: number) {}

  /** A streamed or piped answer begins (its bytes come through `add`). */
  begin(contentType: string, stream: boolean): void {
    this.contentType = contentType;
    this.stream = stream;
  }

  add(piece: string | Buffer): void {
    if (this.overflow) return;
    const text = typeof piece === 'string' ? piece : piece.toString('base64');
    if (typeof piece !== 'string') this.base64 = true;
    this.bytes += text.length;
    if (this.bytes > this.maxBytes) {
      this.overflow = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(text);
  }

  /** A whole answer. */
  whole(status: number, contentType: string, payload: string): void {
    this.status = status;
    this.begin(contentType, false);
    this.add(payload);
  }

  entry(fingerprint: string, requestId: string): Entry {
    if (this.overflow) return { state: 'too-large', fingerprint, requestId };
    const { status, contentType, stream, chunks, base64 } = this;
    return { state: 'done', fingerprint, requestId, status, contentType, stream, chunks, base64 };
  }
}

const recorders = new WeakMap<FastifyRequest, AnswerRecorder>();

/** The recorder of a request sent with an Idempotency-Key (undefined without one). */
export function recorderOf(request: FastifyRequest): AnswerRecorder | undefined {
  return recorders.get(request);
}

/** Wraps a JSON inference route: requests with an Idempotency-Key run once per key and body. */
export function idempotent(context: RelayContext, handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function (this: unknown, request, reply) {
    return withIdempotency(context, request, reply, async () => handler.call(this as never, request, reply));
  };
}

/**
 * Runs `relayed` (which answers through `reply`) once per Idempotency-Key and body; without the
 * header it just runs. Routes that answer some methods themselves (Gemini's countTokens) call
 * this around the relayed part only.
 */
export async function withIdempotency(context: RelayContext, request: FastifyRequest, reply: FastifyReply, relayed: () => Promise<unknown>): Promise<unknown> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return relayed();
  const key = idempotencyKey(header);
  const caller = callerOf(request);
  const kvKey = `idempotency:${caller.tokenId}:${createHash('sha256').update(key).digest('hex')}`;
  const fingerprint = createHash('sha256')
    .update(`${request.routeOptions.url ?? ''}\n${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
  // The relay instance running it (its quota lease tells whether it still runs) and the latest it can end.
  const until = Date.now() + holdLifetimeMs(context.limits, context.options.get('RetryTimes'));
  const running: Entry = { state: 'running', fingerprint, requestId: request.id, owner: context.quota.owner, until };
  if (!(await context.kv.setIfAbsent(kvKey, JSON.stringify(running), { ttlMs: IDEMPOTENCY_TTL_MS }))) {
    return replay(context.kv, kvKey, fingerprint, reply);
  }
  const recorder = new AnswerRecorder(context.limits.idempotencyAnswerBytes);
  recorders.set(request, recorder);
  try {
    await relayed();
  } catch (error) {
    // Refused or failed before an answer: nothing was charged, the key may be used again.
    await context.kv.delete(kvKey);
    throw error;
  }
  const entry = recorder.entry(fingerprint, request.id);
  if (entry.state === 'done' && entry.status >= 400) await context.kv.delete(kvKey);
  else await context.kv.set(kvKey, JSON.stringify(entry), { ttlMs: IDEMPOTENCY_TTL_MS });
  return reply;
}

/** The route handler for uploads: their body is a stream the fingerprint cannot be taken of first. */
export function refuseIdempotencyKey(request: FastifyRequest): void {
  if (request.headers['idempotency-key'] !== undefined) {
    throw new RelayError(400, 'Idempotency-Key is not supported on multipart uploads', 'idempotency_key_unsupported', 'invalid_request_error');
  }
}

function idempotencyKey(header: string | string[]): string {
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new RelayError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', 'invalid_idempotency_key', 'invalid_request_error');
  }
  return key;
}

/** Answers a retry from what the first request kept, waiting while it is still running. */
async function replay(kv: Kv, kvKey: string, fingerprint: string, reply: FastifyReply): Promise<FastifyReply> {
  for (;;) {
    const raw = await kv.get(kvKey);
    // Gone meanwhile (the first request failed and let the key go): an answer it cannot give.
    if (raw === null) throw conflict('the request with this Idempotency-Key failed; send it again with a new key', 'idempotency_key_failed');
    const entry = JSON.parse(raw) as Entry;
    if (entry.fingerprint !== fingerprint) {
      throw conflict('this Idempotency-Key was used with another request body', 'idempotency_key_reused');
    }
    if (entry.state === 'too-large') {
      throw new RelayError(
        422,
        'the answer to this Idempotency-Key was too large to keep and is not replayable',
        'idempotency_not_replayable',
        'invalid_request_error',
      );
    }
    if (entry.state === 'done') return send(entry, reply);
    // Its relay stopped before the answer ended (it died): nothing complete to replay.
    if (Date.now() > entry.until || (await leaseState(kv, entry.owner)) !== 'alive')
      throw conflict('the request with this Idempotency-Key did not finish; send it again with a new key', 'idempotency_key_abandoned');
    await new Promise((resolve) => setTimeout(resolve, JOIN_POLL_MS));
  }
}

function conflict(message: string, code: string): RelayError {
  return new RelayError(409, message, code, 'invalid_request_error');
}

/** The kept answer, a stream written event by event as it was. */
async function send(entry: Extract<Entry, { state: 'done' }>, reply: FastifyReply): Promise<FastifyReply> {
  const decode = (chunk: string) => (entry.base64 ? Buffer.from(chunk, 'base64') : chunk);
  if (!entry.stream) {
    return reply
      .status(entry.status)
      .header('content-type', entry.contentType)
      .header('x-oneapi-request-id', entry.requestId)
      .header('idempotent-replayed', 'true')
      .send(entry.chunks.length === 1 ? decode(entry.chunks[0]!) : Buffer.concat(entry.chunks.map((chunk) => Buffer.from(decode(chunk)))));
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, Object.assign(answerHeaders(entry.contentType, entry.requestId), { 'idempotent-replayed': 'true' }));
  for (const chunk of entry.chunks) raw.write(decode(chunk));
  raw.end();
  return reply;
}
