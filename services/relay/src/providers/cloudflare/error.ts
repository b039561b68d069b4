import { z } from 'zod';
import type { ProviderError } from '../types.js';
import { parseErrorJson, providerError } from '../shared/upstream-error.js';
import { openAiError } from '../openai/error.js';

/** Cloudflare's API envelope: `{"success": false, "errors": [{"code": 10000, "message": "Authentication error"}], "messages": [], "result": null}`. */
const cloudflareErrorSchema = z.object({
  errors: z.array(z.object({ code: z.union([z.number(), z.string()]).nullish(), message: z.string() })).min(1),
});

/** The envelope's errors (joined when several), else the OpenAI-shaped bodies the compatible endpoints also answer. */
export function cloudflareError(status: number, bodyText: string): ProviderError {
  const parsed = cloudflareErrorSchema.safeParse(parseErrorJson(bodyText));
  if (!parsed.success) return openAiError(status, bodyText);
  const [first] = parsed.data.errors;
  const message = parsed.data.errors.map((error) => error.message).join('; ');
  return providerError(message, 'upstream_error', first?.code ?? status);
}
