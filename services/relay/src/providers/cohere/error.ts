import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** Cohere's error body: `{"message": "..."}` (some answers add an `id`); the HTTP status says what kind. */
const cohereErrorSchema = z.object({ id: z.string().nullish(), message: z.string() });

const typesByStatus: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required',
  403: 'permission_error',
  404: 'not_found_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

export function cohereError(status: number, bodyText: string): ProviderError {
  const parsed = cohereErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  return providerError(parsed.data.message, typesByStatus[status] ?? (status >= 500 ? 'server_error' : 'upstream_error'), status);
}
