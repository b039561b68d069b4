import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** Anthropic's error body: `{"type": "error", "error": {"type": "rate_limit_error", "message": "..."}}`. */
const anthropicErrorSchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string() }),
});

export function anthropicError(status: number, bodyText: string): ProviderError {
  const parsed = anthropicErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { type, message } = parsed.data.error;
  return providerError(message, type, type);
}
