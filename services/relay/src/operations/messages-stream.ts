import { z } from 'zod';
import { anthropicErrorEvent } from '../formats/anthropic-input.js';
import { anthropicUsageSchema, usageFromAnthropic, type AnthropicUsage } from '../providers/anthropic/chat.js';
import type { ProviderError } from '../providers/types.js';
import { passthroughStream } from './passthrough-stream.js';
import type { Attempt, ClientStream, StreamPiece } from './types.js';

const eventSchema = z.object({
  type: z.string(),
  message: z.object({ usage: anthropicUsageSchema.nullish() }).nullish(),
  delta: z.object({ text: z.string().nullish(), thinking: z.string().nullish(), partial_json: z.string().nullish() }).nullish(),
  usage: anthropicUsageSchema.nullish(),
  error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

/**
 * A native Messages API stream passed to the client event by event, unchanged. Usage is read on
 * the way: message_start carries the input and cache counts, each message_delta the output so far
 * (and, on newer models, updated input counts), so what was streamed before a cut is known.
 */
export function anthropicPassthroughStream(attempt: Attempt): ClientStream {
  let usage: AnthropicUsage = {};
  const errorFrame = (error: ProviderError) => anthropicErrorEvent(error.type === 'upstream_error' ? 'api_error' : error.type, error.message);
  return passthroughStream(
    attempt,
    eventSchema,
    (data) => {
      if (data.type === 'error') {
        return { error: { message: data.error?.message ?? 'upstream error', type: data.error?.type ?? 'api_error', code: data.error?.type ?? 'stream_error' } };
      }
      const reported = data.type === 'message_start' ? data.message?.usage : data.type === 'message_delta' ? data.usage : null;
      if (reported) usage = Object.assign({}, usage, definedOnly(reported));
      const text = data.delta?.text ?? data.delta?.thinking ?? data.delta?.partial_json ?? '';
      const piece: StreamPiece = {};
      if (text) piece.text = text;
      if (reported) piece.usage = usageFromAnthropic(usage);
      return piece;
    },
    errorFrame,
  );
}

function definedOnly(usage: AnthropicUsage): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined));
}
