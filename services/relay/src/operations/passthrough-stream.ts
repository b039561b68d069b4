import type { z } from 'zod';
import { parseJson } from '../providers/shared/upstream-response.js';
import type { ProviderError } from '../providers/types.js';
import { redactKey } from '../redact.js';
import { formatSseEvent } from '../sse/sse-parser.js';
import type { Attempt, ClientStream, StreamPiece } from './types.js';

/**
 * A stream the client gets exactly as the upstream sent it (a native Messages API or Responses
 * stream), event by event; `read` takes what billing needs from each event the schema accepts
 * (text, usage, an object id), or reports the upstream's in-stream error. The upstream ends the
 * stream its own way, so nothing is added at the end.
 */
export function passthroughStream<T>(
  attempt: Attempt,
  schema: z.ZodType<T>,
  read: (event: T) => Omit<StreamPiece, 'write'> | { error: ProviderError },
  errorFrame: (error: ProviderError) => string,
): ClientStream {
  const key = attempt.context.key;
  return {
    contentType: 'text/event-stream; charset=utf-8',
    onEvent(event) {
      const parsed = schema.safeParse(parseJson(event.data));
      const write = redactKey(formatSseEvent(event), key);
      if (!parsed.success) return [{ write }];
      const piece = read(parsed.data);
      return [piece.error ? { error: piece.error } : { write, ...piece }];
    },
    onEnd: () => [],
    errorFrame,
    close: () => '',
  };
}
