import { z } from 'zod';
import type { Usage } from '../types.js';

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));

/** OpenAI's usage object, leniently: missing counts are zero. */
export const openAiUsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count }).nullish(),
});

export function usageFromOpenAi(usage: z.infer<typeof openAiUsageSchema>): Usage {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

/** The `usage` of a JSON body in OpenAI's shape, or null when there is none. */
export function openAiUsageOf(json: unknown): Usage | null {
  const parsed = z.object({ usage: openAiUsageSchema }).safeParse(json);
  return parsed.success ? usageFromOpenAi(parsed.data.usage) : null;
}

/** Our usage written back in OpenAI's shape, for converted answers. */
export function openAiUsageBody(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens },
  };
}
