import { z } from 'zod';
import type { ProviderContext, Usage } from '../types.js';
import { InvalidChatRequestError } from '../shared/chat-request.js';
import { usageFromZhipu, zhipuData, zhipuUsageSchema } from './chat.js';

const embeddingsRequestSchema = z.object({
  input: z.union([z.string(), z.array(z.string()).length(1)], {
    message: 'Zhipu v3 embeds one text per request: input must be a string or an array of one string',
  }),
});

/** OpenAI embeddings parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set(['model', 'input', 'encoding_format']);

/**
 * OpenAI embeddings request -> Zhipu v3's embedding call: the embedding model's `invoke` with the
 * text as `prompt` (one text per call; more is the client's error). Float vectors come back;
 * base64 is encoded here (zhipuEmbeddingsAnswer).
 */
export function zhipuEmbedBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const parsed = embeddingsRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidChatRequestError(parsed.error.issues[0]?.message ?? 'invalid embeddings request');
  const { input } = parsed.data;
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Zhipu v3 and was dropped`);
  return { body: { prompt: typeof input === 'string' ? input : input[0], ...context.channel.param_override }, warnings };
}

const embedDataSchema = z.object({
  task_status: z.string().nullish(),
  embedding: z.array(z.number()),
  usage: zhipuUsageSchema.nullish(),
});

/** The input tokens of a v3 embedding answer, or null. */
export function zhipuEmbedUsage(json: unknown): Usage | null {
  const usage = z.object({ data: z.object({ usage: zhipuUsageSchema }) }).safeParse(json).data?.data.usage;
  return usage ? { ...usageFromZhipu(usage)!, completion_tokens: 0 } : null;
}

/**
 * A v3 embedding answer (`data.embedding`) in OpenAI's embeddings shape, in the encoding the client
 * asked for (`base64`: little-endian float32, as OpenAI's, which the `openai` client asks for by default).
 */
export function zhipuEmbeddingsAnswer(
  json: unknown,
  request: Record<string, unknown>,
  context: ProviderContext,
): { body: Record<string, unknown>; usage: Usage | null } {
  const data = zhipuData(embedDataSchema, json);
  const usage = data.usage ? { ...usageFromZhipu(data.usage)!, completion_tokens: 0 } : null;
  const embedding = request.encoding_format === 'base64' ? Buffer.from(new Float32Array(data.embedding).buffer).toString('base64') : data.embedding;
  const body: Record<string, unknown> = { object: 'list', data: [{ object: 'embedding', index: 0, embedding }], model: context.upstreamModel };
  if (usage) body.usage = { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens };
  return { body, usage };
}
