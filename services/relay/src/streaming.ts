import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EgressResponse } from '@aigw/platform';
import type { RelayContext } from './context.js';
import type { ProviderContext, ProviderDefinition, Usage } from './providers/types.js';
import { formatSse, SseParser } from './sse/sse-parser.js';
import { saneUsage } from './metering.js';
import { CompletionCounter } from './estimates.js';
import { redactKey } from './relay-call.js';
import type { OutputFormat } from './operations/types.js';
import { anthropicErrorEvent, OpenAiToAnthropicStream } from './formats/anthropic-input.js';

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
}

interface StreamAttempt {
  provider: ProviderDefinition;
  context: ProviderContext;
}

const DONE = 'data: [DONE]\n\n';

/**
 * Streams an upstream answer to the client event by event, as soon as each arrives (no frame
 * held back), converting it to OpenAI chunks. Memory stays bounded: nothing of the answer is
 * kept but a token count. Ends with `[DONE]`; an idle upstream (no chunk within the timeout) is
 * ended with an error event; a client that leaves cancels the upstream request (no retry after
 * that), and what was streamed until then is what gets charged.
 */
export async function streamToClient(
  context: RelayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  attempt: StreamAttempt,
  response: EgressResponse,
  options: { injectedUsage: boolean; requestId: string; output?: OutputFormat; promptTokens?: number },
): Promise<StreamOutcome> {
  const started = Date.now();
  const raw = reply.raw;
  reply.hijack();
  // A hijacked reply skips onSend hooks: the headers a relay answer carries are written here.
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'access-control-allow-origin': '*',
    // The usage record's id: support finds the log row of a complaint by it.
    'x-oneapi-request-id': options.requestId,
    'access-control-expose-headers': 'X-Oneapi-Request-Id',
  });

  const parser = new SseParser();
  const converter = attempt.provider.chat.stream(attempt.context);
  const counter = new CompletionCounter(attempt.context.requestedModel);
  // Anthropic-format clients get each OpenAI chunk converted to Messages API events.
  const anthropic = options.output === 'anthropic' ? new OpenAiToAnthropicStream(attempt.context.requestedModel, options.promptTokens ?? 0) : null;
  const errorEvent = (error: { message: string; type: string; code: string }) =>
    anthropic ? anthropicErrorEvent(error.type === 'upstream_error' ? 'api_error' : error.type, error.message) : formatSse(JSON.stringify({ error }));
  let usage: Usage | null = null;
  let firstResponseMs = -1;
  let partial: string | null = null;
  let clientGone = false;

  const onClose = () => {
    if (!raw.writableEnded) {
      clientGone = true;
      response.body.destroy();
    }
  };
  raw.on('close', onClose);

  const write = async (text: string) => {
    if (clientGone) return;
    if (firstResponseMs < 0) firstResponseMs = Date.now() - started;
    if (!raw.write(text))
      await new Promise<void>((resolve) => {
        const done = () => {
          raw.off('drain', done);
          raw.off('close', done);
          resolve();
        };
        raw.once('drain', done);
        raw.once('close', done);
      });
  };

  const deliver = async (outputs: ReturnType<typeof converter.onEvent>) => {
    for (const output of outputs) {
      if (output.usage) usage = output.usage;
      if (output.text) counter.add(output.text);
      if (output.error) {
        partial = 'upstream error in stream';
        await write(errorEvent(output.error));
        continue;
      }
      if (output.data === undefined) continue;
      if (anthropic) {
        // The converter needs every chunk, the usage-only one included (message_delta's usage).
        const events = anthropic.push(redactKey(output.data, attempt.context.key));
        if (events.length > 0) await write(events.join(''));
        continue;
      }
      // The usage-only chunk we asked for on the client's behalf is not theirs to see.
      if (options.injectedUsage && output.usageOnly) continue;
      await write(formatSse(redactKey(output.data, attempt.context.key)));
    }
  };

  const idle = context.limits.streamIdleTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      partial = 'stream idle timeout';
      response.body.destroy();
    }, idle);
  };

  // The whole answer has a deadline too, so no request outlives its quota hold.
  const deadline = setTimeout(() => {
    partial = 'answer took longer than the relay allows';
    response.body.destroy();
  }, context.limits.answerTimeoutMs);

  try {
    armIdle();
    for await (const chunk of response.body) {
      armIdle();
      for (const event of parser.push(chunk as Buffer)) {
        if (event.data === '[DONE]') continue; // ours is sent at the end
        await deliver(converter.onEvent(event));
      }
      if (clientGone) break;
    }
    if (!clientGone && !partial) {
      for (const event of parser.end()) if (event.data !== '[DONE]') await deliver(converter.onEvent(event));
      await deliver(converter.onEnd());
    }
  } catch (error) {
    if (!clientGone && !partial) {
      partial = 'upstream stream broken';
      context.logger.warn({ err: error, requestId: options.requestId }, 'upstream stream ended abnormally');
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
    raw.off('close', onClose);
  }

  if (clientGone) partial = 'client disconnected';
  if (!clientGone) {
    if (partial) await write(errorEvent({ message: partial, type: 'upstream_error', code: 'stream_interrupted' }));
    if (!anthropic) await write(DONE);
    else if (!partial) await write(anthropic.finish({ input_tokens: options.promptTokens ?? 0, output_tokens: counter.total() }).join(''));
    raw.end();
  }
  return {
    usage: usage ? saneUsage(usage) : null,
    // Counting what was streamed is only needed when the upstream gave no usage.
    completionTokens: usage ? 0 : counter.total(),
    firstResponseMs,
    partial,
    upstreamModel: attempt.context.upstreamModel,
  };
}
