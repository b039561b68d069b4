import { z } from 'zod';
import type { ProviderContext, Usage } from '../types.js';
import { InvalidChatRequestError } from '../shared/chat-request.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { BaiduAnswerError } from './error.js';
import { baiduUsageSchema, usageFromBaidu } from './chat.js';

const embeddingsRequestSchema = z.object({
  input: z.union([z.string(), z.array(z.string())], { message: 'Baidu embeds text only: input must be a string or an array of strings' }),
  user: z.string().nullish(),
});

/** OpenAI embeddings parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set(['model', 'input', 'encoding_format', 'user']);

/**
 * OpenAI embeddings request -> the wenxinworkshop embeddings call (`embeddings/{endpoint}`):
 * `input` as a list of texts, `user_id`. Float vectors come back; base64 is encoded here.
 */
export function baiduEmbedBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const parsed = embeddingsRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidChatRequestError(parsed.error.issues[0]?.message ?? 'invalid embeddings request');
  const { input, user } = parsed.data;
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Baidu and was dropped`);
  const out: Record<string, unknown> = { input: typeof input === 'string' ? [input] : input };
  if (user) out.user_id = user;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

const embedAnswerSchema = z.object({
  data: z.array(z.object({ index: z.number().nullish(), embedding: z.array(z.number()) })).nullish(),
  usage: baiduUsageSchema.nullish(),
  error_code: z.union([z.number(), z.string()]).nullish(),
  error_msg: z.string().nullish(),
});

/** The input tokens of an embeddings answer, or null. */
export function baiduEmbedUsage(json: unknown): Usage | null {
  const usage = usageFromBaidu(embedAnswerSchema.safeParse(json).data?.usage);
  return usage ? { ...usage, completion_tokens: 0 } : null;
}

/**
 * An embeddings answer (`data[].embedding`) in OpenAI's embeddings shape, in the encoding the client
 * asked for (`base64`: little-endian float32, as OpenAI's). `{error_code, error_msg}` is thrown.
 */
export function baiduEmbeddingsAnswer(
  json: unknown,
  request: Record<string, unknown>,
  context: ProviderContext,
): { body: Record<string, unknown>; usage: Usage | null } {
  const answer = parseUpstream(embedAnswerSchema, json, 'baidu');
  if (answer.error_code != null && Number(answer.error_code) !== 0) throw new BaiduAnswerError(answer.error_code, answer.error_msg);
  const base64 = request.encoding_format === 'base64';
  const usage = baiduEmbedUsage(json);
  const body: Record<string, unknown> = {
    object: 'list',
    data: (answer.data ?? []).map((item, position) => ({
      object: 'embedding',
      index: item.index ?? position,
      embedding: base64 ? Buffer.from(new Float32Array(item.embedding).buffer).toString('base64') : item.embedding,
    })),
    model: context.upstreamModel,
  };
  if (usage) body.usage = { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens };
  return { body, usage };
}
