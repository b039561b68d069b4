import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, errorTypeOfStatus } from '../shared/upstream-error.js';

/**
 * The ChatGPT backend's errors: `{"detail": "..."}` for most refusals, `{"error": {"type", "message"}}`
 * for a plan's usage limit (`usage_limit_reached`, 429), OpenAI's shape elsewhere; the type from the status (the backend's own types, `usage_limit_reached`, stay in `code`).
 */
export function codexError(status: number, bodyText: string): ProviderError {
  const error = normaliseUpstreamError(status, bodyText);
  return { ...error, type: errorTypeOfStatus(status) ?? (status >= 500 ? 'server_error' : error.type) };
}
