import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** Google's error body: `{"error": {"code": 429, "message": "...", "status": "RESOURCE_EXHAUSTED"}}`. */
const geminiErrorSchema = z.object({
  error: z.object({ code: z.number().nullish(), message: z.string(), status: z.string().nullish() }),
});

export function geminiError(status: number, bodyText: string): ProviderError {
  const parsed = geminiErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { code, message, status: errorStatus } = parsed.data.error;
  return providerError(message, errorStatus ?? 'upstream_error', code ?? errorStatus ?? status);
}
