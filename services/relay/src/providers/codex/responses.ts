import { z } from 'zod';
import type { ProviderContext, Usage } from '../types.js';

/** Parameters the ChatGPT backend refuses (as the established product found): dropped with a warning. */
const refused = ['max_output_tokens', 'temperature', 'frequency_penalty', 'presence_penalty'];

/**
 * A client's Responses body as the ChatGPT backend takes it: the upstream model, `stream: true`
 * and `store: false` (it streams and stores nothing, so there is no stored response to fetch
 * later), `instructions` present (it requires the field; empty as the Codex CLI sends it), and the
 * parameters it refuses dropped. A client that did not ask to stream gets the whole response the
 * stream ends with (`passthrough.streamsOnly`, operations/responses.ts).
 */
export function codexResponsesBody(body: Record<string, unknown>, context: Pick<ProviderContext, 'upstreamModel'>) {
  const warnings: string[] = [];
  const out: Record<string, unknown> = { ...body, model: context.upstreamModel, stream: true, store: false, instructions: body.instructions ?? '' };
  for (const name of refused) {
    if (out[name] == null) continue;
    delete out[name];
    warnings.push(`parameter "${name}" is not supported by the Codex backend and was dropped`);
  }
  if (body.store === true) warnings.push('store: the Codex backend keeps no responses; sent as false');
  return { body: out, warnings };
}

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));
const answerSchema = z.object({
  usage: z.object({ input_tokens: count, output_tokens: count, input_tokens_details: z.object({ cached_tokens: count }).nullish() }).nullish(),
});

/** The usage of a whole Responses answer, in our terms (input includes cached tokens); null when it has none. */
export function responsesUsageOf(json: unknown): Usage | null {
  const usage = answerSchema.safeParse(json).data?.usage;
  return usage
    ? { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 }
    : null;
}
