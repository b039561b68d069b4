import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { normaliseUpstreamError, parseErrorJson, providerError } from '../shared/upstream-error.js';

/** OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`; `code` is often null. */
const openAiErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});

export function openAiError(status: number, bodyText: string): ProviderError {
  const parsed = openAiErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return normaliseUpstreamError(status, bodyText);
  const { message, type, code } = parsed.data.error;
  return providerError(message, type ?? 'upstream_error', code ?? type ?? status);
}
