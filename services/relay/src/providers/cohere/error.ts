import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError, errorTypeOfStatus } from '../shared/upstream-error.js';

/** Cohere's error body: `{"message": "..."}` (some answers add an `id`); the HTTP status says what kind. */
const cohereErrorSchema = z.object({ id: z.string().nullish(), message: z.string() });

export function cohereError(status: number, bodyText: string): ProviderError {
  const parsed = cohereErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  return providerError(parsed.data.message, errorTypeOfStatus(status) ?? (status >= 500 ? 'server_error' : 'upstream_error'), status);
}
