import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { ignoredRequestKeys, parseChatRequest, type ChatMessage } from '../shared/chat-request.js';
import { chatCompletion, type FinishReason } from '../shared/openai-format.js';
import { textOnlyTurns, type Turn } from '../shared/turns.js';
import { InvalidUpstreamResponseError, parseUpstream } from '../shared/upstream-response.js';
import { BaiduAnswerError } from './error.js';

/** OpenAI parameters this converter maps (and Baidu's own `penalty_score`); any other one present is dropped with a warning. */
const mappedKeys = new Set([
  ...ignoredRequestKeys,
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'frequency_penalty',
  'penalty_score',
  'user',
  'response_format',
]);

type BaiduRole = 'user' | 'assistant';

/**
 * OpenAI chat request -> ERNIE chat body: `messages` alternating user and assistant (starting with
 * the user), the system text as `system`, `temperature` in (0, 1] (a value outside is sent as the
 * nearest one ERNIE takes, and reported), `top_p`, `penalty_score` (Baidu's own field, or
 * `frequency_penalty` 0..2 mapped onto its 1..2), `max_output_tokens` (at least 2), `stop`,
 * `user_id`, a JSON `response_format`, and `stream`.
 */
export function baiduChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Baidu ERNIE and was dropped`);
  const { system, messages } = baiduMessages(request.messages, warnings);
  const out: Record<string, unknown> = { messages };
  if (system !== '') out.system = system;
  if (request.temperature != null) {
    const temperature = Math.min(1, Math.max(0.01, request.temperature));
    if (temperature !== request.temperature) warnings.push(`temperature ${request.temperature} is outside ERNIE's (0, 1] and was sent as ${temperature}`);
    out.temperature = temperature;
  }
  if (request.top_p != null) out.top_p = request.top_p;
  const penalty = penaltyScore(body.penalty_score, request.frequency_penalty, warnings);
  if (penalty !== null) out.penalty_score = penalty;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) {
    if (maxTokens < 2) warnings.push(`max_tokens ${maxTokens} is below ERNIE's minimum and was sent as 2`);
    out.max_output_tokens = Math.max(2, maxTokens);
  }
  if (request.stop != null) out.stop = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.user) out.user_id = request.user;
  if (request.response_format?.type === 'json_object' || request.response_format?.type === 'json_schema') {
    if (request.response_format.type === 'json_schema')
      warnings.push('response_format json_schema: ERNIE takes JSON output without a schema; the schema was dropped');
    out.response_format = 'json_object';
  }
  if (request.stream) out.stream = true;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

/** Baidu's own `penalty_score` (1..2) when the client sent it; else `frequency_penalty` 0..2 onto 1..2 (a negative one has no equivalent). */
function penaltyScore(own: unknown, frequencyPenalty: number | null | undefined, warnings: string[]): number | null {
  if (typeof own === 'number') return own;
  if (frequencyPenalty == null || frequencyPenalty === 0) return null;
  if (frequencyPenalty < 0) {
    warnings.push(`frequency_penalty ${frequencyPenalty}: ERNIE's penalty_score cannot reward repetition; it was dropped`);
    return null;
  }
  return 1 + Math.min(2, frequencyPenalty) / 2;
}

/**
 * The messages as ERNIE's: system and developer messages make `system`; the rest fold into
 * alternating user and assistant turns (consecutive messages of a side joined by a blank line).
 * ERNIE wants the user first, so assistant turns before the first user turn are dropped, and
 * reported; images, tool calls and tool results are too.
 */
function baiduMessages(input: ChatMessage[], warnings: string[]): { system: string; messages: Array<{ role: BaiduRole; content: string }> } {
  const { system, turns } = textOnlyTurns(input, warnings, 'Baidu ERNIE');
  const firstUser = turns.findIndex((turn) => turn.role === 'user');
  const leading = firstUser === -1 ? turns.length : firstUser;
  if (leading > 0) warnings.push('ERNIE conversations start with the user: the assistant turns before the first user message were dropped');
  return { system, messages: turns.slice(leading).map((turn: Turn<BaiduRole, string>) => ({ role: turn.role, content: turn.items.join('\n\n') })) };
}

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));
export const baiduUsageSchema = z.object({ prompt_tokens: count, completion_tokens: count, total_tokens: count });

/** ERNIE's usage as ours (a completion count missing from a stream's last event is its total minus the prompt); null when it gave none. */
export function usageFromBaidu(usage: z.infer<typeof baiduUsageSchema> | null | undefined): Usage | null {
  if (!usage) return null;
  const completion = usage.completion_tokens > 0 ? usage.completion_tokens : Math.max(0, usage.total_tokens - usage.prompt_tokens);
  return { prompt_tokens: usage.prompt_tokens, completion_tokens: completion, cached_tokens: 0 };
}

/** ERNIE's finish: its `finish_reason` when it gives one (normal, stop, length, content_filter), else from the flags. */
export function finishReasonFromBaidu(answer: {
  finish_reason?: string | null;
  is_truncated?: boolean | null;
  need_clear_history?: boolean | null;
}): FinishReason {
  switch (answer.finish_reason) {
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'normal':
    case 'stop':
      return 'stop';
    default:
      if (answer.is_truncated) return 'length';
      return answer.need_clear_history ? 'content_filter' : 'stop';
  }
}

/** The fields an ERNIE answer and each of its stream events share; `error_code` makes it an error. */
export const baiduAnswerSchema = z.object({
  id: z.string().nullish(),
  result: z.string().nullish(),
  is_end: z.boolean().nullish(),
  is_truncated: z.boolean().nullish(),
  need_clear_history: z.boolean().nullish(),
  finish_reason: z.string().nullish(),
  usage: baiduUsageSchema.nullish(),
  error_code: z.union([z.number(), z.string()]).nullish(),
  error_msg: z.string().nullish(),
});

/** An ERNIE chat answer as a chat completion; `{error_code, error_msg}` (in a 200, as Baidu answers errors) is thrown. */
export function baiduChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const answer = parseUpstream(baiduAnswerSchema, json, 'baidu');
  if (answer.error_code != null && Number(answer.error_code) !== 0) throw new BaiduAnswerError(answer.error_code, answer.error_msg);
  if (answer.result == null) throw new InvalidUpstreamResponseError('baidu', 'result: missing');
  const usage = usageFromBaidu(answer.usage);
  const body = chatCompletion({
    id: answer.id ?? 'chatcmpl-baidu',
    model: context.upstreamModel,
    content: answer.result,
    reasoning: '',
    toolCalls: [],
    finishReason: finishReasonFromBaidu(answer),
    usage,
  });
  return { body, usage };
}
