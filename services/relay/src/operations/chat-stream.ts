import { formatSse } from '../sse/sse-parser.js';
import { anthropicErrorEvent, OpenAiToAnthropicStream } from '../formats/anthropic-input.js';
import { redactKey } from '../redact.js';
import { chatOf, type ProviderError, type StreamOutput } from '../providers/types.js';
import type { Attempt, ClientStream, StreamPiece } from './types.js';

const SSE = 'text/event-stream; charset=utf-8';
const DONE = 'data: [DONE]\n\n';

/**
 * A chat stream for an OpenAI-format client: the provider's converter turns the upstream's events
 * into OpenAI chunks, sent as they come, ended by `[DONE]`. The usage-only chunk the relay asked
 * for on the client's behalf is not the client's to see.
 */
export function openAiChatStream(attempt: Attempt, options: { injectedUsage: boolean }): ClientStream {
  const converter = chatOf(attempt.provider).stream(attempt.context);
  const key = attempt.context.key;
  const pieces = (outputs: StreamOutput[]): StreamPiece[] =>
    outputs.map((output) => {
      const hidden = output.data === undefined || (options.injectedUsage && output.usageOnly === true);
      const piece = pieceOf(output);
      if (!hidden) piece.write = formatSse(redactKey(output.data!, key));
      return piece;
    });
  return {
    contentType: SSE,
    onEvent: (event) => pieces(converter.onEvent(event)),
    onEnd: () => pieces(converter.onEnd()),
    errorFrame: openAiErrorFrame,
    close: () => DONE,
  };
}

/**
 * A chat stream for an Anthropic-format client (`/v1/messages` on a channel that is not
 * Anthropic's): each OpenAI chunk becomes Messages API events. message_start tells the client its
 * input tokens before any usage can come, so this stream counts the prompt exactly when it opens
 * (the one path that still does before the first byte; the hold took the bound).
 */
export function anthropicChatStream(attempt: Attempt, options: { promptTokens: () => number }): ClientStream {
  const converter = chatOf(attempt.provider).stream(attempt.context);
  const promptTokens = options.promptTokens();
  const anthropic = new OpenAiToAnthropicStream(attempt.context.requestedModel, promptTokens);
  const key = attempt.context.key;
  // The converter needs every chunk, the usage-only one included (message_delta's usage).
  const pieces = (outputs: StreamOutput[]): StreamPiece[] =>
    outputs.map((output) => {
      const events = output.data === undefined ? [] : anthropic.push(redactKey(output.data, key));
      const piece = pieceOf(output);
      if (events.length > 0) piece.write = events.join('');
      return piece;
    });
  return {
    contentType: SSE,
    onEvent: (event) => pieces(converter.onEvent(event)),
    onEnd: () => pieces(converter.onEnd()),
    errorFrame: (error) => anthropicErrorEvent(error.type === 'upstream_error' ? 'api_error' : error.type, error.message),
    close: (partial, completionTokens) => (partial ? '' : anthropic.finish(() => ({ input_tokens: promptTokens, output_tokens: completionTokens() })).join('')),
  };
}

/** What a provider's output tells the pipeline, without what the client sees. */
export function pieceOf(output: StreamOutput): StreamPiece {
  const piece: StreamPiece = {};
  if (output.text) piece.text = output.text;
  if (output.usage) piece.usage = output.usage;
  if (output.error) piece.error = output.error;
  return piece;
}

/** An in-stream error in OpenAI's shape (what OpenAI itself sends). */
export function openAiErrorFrame(error: ProviderError): string {
  return formatSse(JSON.stringify({ error }));
}
