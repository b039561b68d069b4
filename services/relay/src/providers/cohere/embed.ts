import { z } from 'zod';
import type { ProviderContext, Usage } from '../types.js';
import { InvalidChatRequestError } from '../shared/chat-request.js';
import { parseUpstream } from '../shared/upstream-response.js';

/** What Cohere's v3+ embed models need to know about the texts; documents to store is the neutral choice. */
export const DEFAULT_INPUT_TYPE = 'search_document';

const embeddingsRequestSchema = z.object({
  input: z.union([z.string(), z.array(z.string())], { message: 'Cohere embeds text only: input must be a string or an array of strings' }),
  dimensions: z.number().nullish(),
  encoding_format: z.string().nullish(),
  /** Cohere's own field, passed through when a client sends it (search_query, classification, clustering). */
  input_type: z.string().nullish(),
});

/** OpenAI embeddings parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set(['model', 'input', 'dimensions', 'encoding_format', 'input_type']);

/**
 * OpenAI embeddings request -> Cohere v2 embed body (`POST /v2/embed`): the texts, `input_type`
 * search_document unless the client names one, float embeddings (base64 is encoded here from the
 * floats, see cohereEmbeddingsAnswer), `dimensions` as `output_dimension` (embed v4).
 */
export function cohereEmbedBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const parsed = embeddingsRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidChatRequestError(parsed.error.issues[0]?.message ?? 'invalid embeddings request');
  const request = parsed.data;
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Cohere and was dropped`);
  const out: Record<string, unknown> = {
    model: context.upstreamModel,
    texts: typeof request.input === 'string' ? [request.input] : request.input,
    input_type: request.input_type ?? DEFAULT_INPUT_TYPE,
    embedding_types: ['float'],
  };
  if (request.dimensions != null) out.output_dimension = request.dimensions;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

const vectors = z.array(z.array(z.number()));
const billedSchema = z.object({ meta: z.object({ billed_units: z.object({ input_tokens: z.number().nullish() }).nullish() }).nullish() });
const embedResponseSchema = billedSchema.extend({
  // `{float: [...]}` when embedding_types was given (always, from us); a bare list from older deployments.
  embeddings: z.union([z.object({ float: vectors }), vectors]),
});

/** The input tokens Cohere billed for an embed answer (`meta.billed_units`), or null. */
export function cohereEmbedUsage(json: unknown): Usage | null {
  const tokens = billedSchema.safeParse(json).data?.meta?.billed_units?.input_tokens;
  return tokens != null ? { prompt_tokens: tokens, completion_tokens: 0, cached_tokens: 0 } : null;
}

/**
 * A Cohere embed answer in OpenAI's embeddings shape, in the encoding the client asked for
 * (`base64`: little-endian float32, as OpenAI's and as the `openai` client decodes it by default).
 */
export function cohereEmbeddingsAnswer(
  json: unknown,
  request: Record<string, unknown>,
  context: ProviderContext,
): { body: Record<string, unknown>; usage: Usage | null } {
  const answer = parseUpstream(embedResponseSchema, json, 'cohere');
  const list = Array.isArray(answer.embeddings) ? answer.embeddings : answer.embeddings.float;
  const base64 = request.encoding_format === 'base64';
  const usage = cohereEmbedUsage(json);
  const body: Record<string, unknown> = {
    object: 'list',
    data: list.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
    })),
    model: context.upstreamModel,
  };
  if (usage) body.usage = { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens };
  return { body, usage };
}
