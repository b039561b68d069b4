import { z } from 'zod';
import type { ProviderContext, Usage } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { parseUpstream } from '../shared/upstream-response.js';

/**
 * `/v1/embeddings` -> `/compatible-mode/v1/embeddings`: the client's body but for the model, and
 * floats asked for whatever the client asked: the compatible mode documents no other encoding, and
 * the `openai` client asks for base64 by default (encoded here from the floats, see
 * dashScopeEmbeddingsAnswer).
 */
export function dashScopeEmbedBody(body: Record<string, unknown>, context: ProviderContext): Record<string, unknown> {
  return { ...body, model: context.upstreamModel, encoding_format: 'float' };
}

const embeddingsSchema = z.looseObject({
  data: z.array(z.looseObject({ embedding: z.array(z.number()) })),
});

/**
 * The compatible mode's answer (OpenAI's shape, floats) for the client: as it came, or with each
 * vector as base64 (little-endian float32, as OpenAI's and as the `openai` client decodes it) when
 * the client asked for that. The usage is OpenAI's `usage`.
 */
export function dashScopeEmbeddingsAnswer(json: unknown, request: Record<string, unknown>): { body: unknown; usage: Usage | null } {
  const usage = openAiUsageOf(json);
  if (request.encoding_format !== 'base64') return { body: json, usage };
  const answer = parseUpstream(embeddingsSchema, json, 'ali');
  const data = answer.data.map((entry) => ({ ...entry, embedding: Buffer.from(new Float32Array(entry.embedding).buffer).toString('base64') }));
  return { body: { ...answer, data }, usage };
}
