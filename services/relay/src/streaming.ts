import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EgressResponse } from '@aigw/platform';
import type { RelayContext } from './context.js';
import type { Usage } from './providers/types.js';
import { SseParser } from './sse/sse-parser.js';
import { saneUsage } from './metering.js';
import { CompletionCounter } from './estimates.js';
import type { Attempt, ClientStream, StreamPiece } from './operations/types.js';
import { OUTRAN_BALANCE, type StreamBudget } from './stream-budget.js';
import { recorderOf } from './idempotency.js';
import { OVERHEAD_HEADER, overheadOf } from './overhead.js';

/** How a relayed answer ended, for settlement. */
export interface StreamOutcome {
  /** The upstream's own usage report (an explicit zero included), or null when it sent none. */
  usage: Usage | null;
  /** Tokens counted from what was delivered, used when `usage` is null. */
  completionTokens: number;
  /** Time to the first byte written to the client. */
  firstResponseMs: number;
  /** Why the answer ended early (client gone, idle timeout, upstream cut), or null. */
  partial: string | null;
  upstreamModel: string;
  /** The id of an object the upstream stored for this request (Answer.objectId). */
  objectId?: string;
  /** `usage` was counted by the relay, not reported (Answer.counted). */
  counted?: boolean;
  /** The stream was stopped because the user or the key could not pay for more (StreamBudget). */
  outranBalance?: boolean;
}

/** The headers every relay answer carries; a hijacked reply skips onSend hooks, so they are written here. */
export function answerHeaders(contentType: string, requestId: string, overheadMs?: string): Record<string, string> {
  return {
    'content-type': contentType,
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'access-control-allow-origin': '*',
    // The usage record's id: support finds the log row of a complaint by it.
    'x-oneapi-request-id': requestId,
    ...(overheadMs !== undefined ? { [OVERHEAD_HEADER]: overheadMs } : {}),
    'access-control-expose-headers': `X-Oneapi-Request-Id, ${EXPOSED_OVERHEAD}`,
  };
}

/** Browsers may read the overhead header too (the console's playground shows it). */
const EXPOSED_OVERHEAD = 'X-Aigw-Overhead-Ms';

/**
 * Streams an upstream answer to the client event by event, as soon as each arrives (no frame
 * held back), in the client's format (the operation's ClientStream). Memory stays bounded:
 * nothing of the answer is kept but a token count. An idle upstream (no chunk within the timeout)
 * is ended with an error frame; a client that leaves cancels the upstream request (no retry after
 * that; with an Idempotency-Key the answer runs on and is kept for the retry instead), and what
 * was streamed until then is what gets charged. With a budget, an answer that
 * outruns what the user and the key can pay is stopped before the piece that would cross it, with
 * an error event the client's protocol understands, and the upstream call cancelled.
 */
export async function streamToClient(
  context: RelayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  attempt: Attempt,
  response: EgressResponse,
  client: ClientStream,
  requestId: string,
  /** Called once the upstream's stream is over, before the client's last byte. */
  upstreamDone: () => Promise<void>,
  budget?: StreamBudget,
): Promise<StreamOutcome> {
  const started = Date.now();
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, answerHeaders(client.contentType, requestId, overheadOf(reply).value()));

  const parser = attempt.provider.framing?.() ?? new SseParser();
  const counter = new CompletionCounter(attempt.context.requestedModel);
  // Sent with an Idempotency-Key: the answer is kept for a retry, and runs to its end even if the client leaves.
  const recorder = recorderOf(request);
  recorder?.begin(client.contentType, true);
  const pump = new AnswerPump(context, raw, response, 'stream idle timeout', recorder !== undefined);
  let usage: Usage | null = null;
  let firstResponseMs = -1;
  /** The upstream reported an error inside the stream. */
  let streamError: string | null = null;
  let objectId: string | undefined;
  /** Stopped at the balance: nothing more is written or charged. */
  let outran = false;

  const write = async (text: string) => {
    if (text === '') return;
    recorder?.add(text);
    if (pump.clientGone) return;
    if (firstResponseMs < 0) firstResponseMs = Date.now() - started;
    if (!raw.write(text)) await drained(raw);
  };

  const deliver = async (pieces: StreamPiece[]) => {
    for (const piece of pieces) {
      if (outran) return;
      if (piece.usage) usage = piece.usage;
      if (piece.text) counter.add(piece.text);
      if (piece.objectId) objectId = piece.objectId;
      if (budget && (piece.text || piece.usage)) {
        if (!(await budget.covers(counter, usage))) {
          outran = true;
          pump.stop(OUTRAN_BALANCE);
          return;
        }
        budget.delivered(counter, usage);
      }
      if (piece.error) {
        streamError = 'upstream error in stream';
        await write(client.errorFrame(piece.error));
        continue;
      }
      if (piece.write !== undefined) await write(piece.write);
    }
  };

  await pump.run(requestId, 'upstream stream broken', async (chunk) => {
    for (const event of parser.push(chunk)) {
      if (event.data === '[DONE]') continue; // the client stream ends it its own way
      await deliver(client.onEvent(event));
    }
  });
  /** The answer ended with the client (an answer kept for an Idempotency-Key runs on without it). */
  const left = pump.clientGone && !pump.keepsRunning;
  if (!left && !pump.partial && !streamError && !outran) {
    for (const event of parser.end()) if (event.data !== '[DONE]') await deliver(client.onEvent(event));
    await deliver(client.onEnd());
  }

  const partial = left ? 'client disconnected' : (streamError ?? pump.partial);
  await upstreamDone();
  if (!left) {
    if (outran) await write(client.errorFrame({ message: OUTRAN_BALANCE, type: 'insufficient_quota', code: 'insufficient_quota' }));
    else if (partial) await write(client.errorFrame({ message: partial, type: 'upstream_error', code: 'stream_interrupted' }));
    await write(client.close(partial, () => counter.total()));
    if (!pump.clientGone) raw.end();
  }
  return {
    usage: usage ? saneUsage(usage) : null,
    // Counting what was streamed is only needed when the upstream gave no usage.
    completionTokens: usage ? 0 : counter.total(),
    firstResponseMs,
    partial,
    upstreamModel: attempt.context.upstreamModel,
    ...(objectId ? { objectId } : {}),
    ...(outran ? { outranBalance: true } : {}),
  };
}

/**
 * What every answer passed on as it comes (an event stream, piped bytes) is guarded by: a client
 * that leaves cancels the upstream request; an upstream silent for STREAMING_TIMEOUT_MS, or
 * slower in all than UPSTREAM_ANSWER_TIMEOUT_MS, is cut (`partial` says which), so no request
 * outlives its quota hold.
 */
export class AnswerPump {
  clientGone = false;
  partial: string | null = null;

  constructor(
    private readonly context: RelayContext,
    private readonly raw: FastifyReply['raw'],
    private readonly response: EgressResponse,
    private readonly idleReason: string,
    /** The answer is read to its end even when the client leaves (it is kept for an Idempotency-Key retry). */
    readonly keepsRunning = false,
  ) {}

  /** Feeds each upstream chunk to `onChunk` until the upstream ends, is cut, or the client leaves. */
  async run(requestId: string, brokenReason: string, onChunk: (chunk: Buffer) => Promise<void>): Promise<void> {
    const { raw, response, context } = this;
    const onClose = () => {
      if (!raw.writableEnded) {
        this.clientGone = true;
        if (!this.keepsRunning) response.body.destroy();
      }
    };
    raw.on('close', onClose);
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => this.cut(this.idleReason), context.limits.streamIdleTimeoutMs);
    };
    const deadline = setTimeout(() => this.cut('answer took longer than the relay allows'), context.limits.answerTimeoutMs);
    try {
      armIdle();
      for await (const chunk of response.body) {
        armIdle();
        await onChunk(chunk as Buffer);
        if (this.clientGone && !this.keepsRunning) break;
      }
    } catch (error) {
      if (!this.clientGone && !this.partial) {
        this.partial = brokenReason;
        context.logger.warn({ err: error, requestId }, 'upstream answer ended abnormally');
      }
    } finally {
      clearTimeout(idle);
      clearTimeout(deadline);
      raw.off('close', onClose);
    }
  }

  /** Ends the answer early on the relay's own decision (the upstream call is cancelled). */
  stop(reason: string): void {
    this.cut(reason);
  }

  private cut(reason: string): void {
    this.partial = reason;
    this.response.body.destroy();
  }
}

/** Resolves when the socket can take more (or is gone). */
export function drained(raw: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.once('drain', done);
    raw.once('close', done);
  });
}
