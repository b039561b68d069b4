import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { ignoredRequestKeys, parseChatRequest, type ChatMessage } from '../shared/chat-request.js';
import { chatCompletion, type FinishReason } from '../shared/openai-format.js';
import { textOnlyTurns } from '../shared/turns.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { TencentAnswerError, tencentErrorObjectSchema } from './error.js';

/** OpenAI parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set([...ignoredRequestKeys, 'temperature', 'top_p']);

/**
 * OpenAI chat request -> Hunyuan ChatCompletions body: `Model`, `Messages` (`{Role, Content}`: the
 * system text first, then user and assistant alternating, consecutive messages of a side joined
 * by a blank line), `Stream`, `Temperature` (0..2) and `TopP` (0..1), which are OpenAI's ranges.
 */
export function tencentChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Tencent Hunyuan and was dropped`);
  const out: Record<string, unknown> = { Model: context.upstreamModel, Messages: hunyuanMessages(request.messages, warnings), Stream: request.stream === true };
  if (request.temperature != null) out.Temperature = request.temperature;
  if (request.top_p != null) out.TopP = request.top_p;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

/** System and developer messages make the leading system message; images, tool calls and tool results are reported as dropped. */
function hunyuanMessages(input: ChatMessage[], warnings: string[]): Array<{ Role: string; Content: string }> {
  const { system, turns } = textOnlyTurns(input, warnings, 'Tencent Hunyuan');
  const messages = turns.map((turn) => ({ Role: turn.role, Content: turn.items.join('\n\n') }));
  return system === '' ? messages : [{ Role: 'system', Content: system }, ...messages];
}

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));
export const hunyuanUsageSchema = z.object({ PromptTokens: count, CompletionTokens: count, TotalTokens: count });

export function usageFromHunyuan(usage: z.infer<typeof hunyuanUsageSchema> | null | undefined): Usage | null {
  return usage ? { prompt_tokens: usage.PromptTokens, completion_tokens: usage.CompletionTokens, cached_tokens: 0 } : null;
}

/** Hunyuan's FinishReason: `stop`, `length`, `sensitive` (its moderation), `tool_calls`; '' while the answer goes on. */
export function finishReasonFromHunyuan(reason: string | null | undefined): FinishReason | null {
  switch (reason) {
    case null:
    case undefined:
    case '':
      return null;
    case 'length':
      return 'length';
    case 'sensitive':
      return 'content_filter';
    case 'tool_calls':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

const messageSchema = z.object({ Role: z.string().nullish(), Content: z.string().nullish() });
/** A whole answer's `Response`, and each stream event (which is not wrapped in `Response`). */
export const hunyuanAnswerSchema = z.object({
  Id: z.string().nullish(),
  Choices: z.array(z.object({ Message: messageSchema.nullish(), Delta: messageSchema.nullish(), FinishReason: z.string().nullish() })).nullish(),
  Usage: hunyuanUsageSchema.nullish(),
  Error: tencentErrorObjectSchema.nullish(),
});

/** A Hunyuan answer (`Response`) as a chat completion; `Response.Error` (in a 200, as Tencent answers errors) is thrown. */
export function tencentChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const answer = parseUpstream(z.object({ Response: hunyuanAnswerSchema }), json, 'tencent').Response;
  if (answer.Error) throw new TencentAnswerError(answer.Error.Code, answer.Error.Message);
  const choice = answer.Choices?.[0];
  const usage = usageFromHunyuan(answer.Usage);
  const body = chatCompletion({
    id: answer.Id ?? 'chatcmpl-tencent',
    model: context.upstreamModel,
    content: choice?.Message?.Content ?? '',
    reasoning: '',
    toolCalls: [],
    finishReason: finishReasonFromHunyuan(choice?.FinishReason) ?? 'stop',
    usage,
  });
  return { body, usage };
}
