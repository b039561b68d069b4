import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { ignoredRequestKeys, parseChatRequest, type ChatMessage } from '../shared/chat-request.js';
import { chatCompletion } from '../shared/openai-format.js';
import { textOnlyTurns } from '../shared/turns.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { ZhipuAnswerError } from './error.js';

/** OpenAI parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set([...ignoredRequestKeys, 'temperature', 'top_p']);

interface ZhipuTurn {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * OpenAI chat request -> Zhipu v3 invoke body: the conversation as `prompt` turns, `temperature`
 * in (0, 1] and `top_p` in (0, 1) (a value outside is sent as the nearest one Zhipu takes, and
 * reported), `incremental` for a stream (each event then carries only its new text). The v3 API
 * takes nothing else: no token limit, stop words, tools or images.
 */
export function zhipuChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[]; stream: boolean } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Zhipu v3 and was dropped`);
  const out: Record<string, unknown> = { prompt: zhipuPrompt(request.messages, warnings) };
  if (request.temperature != null) out.temperature = bounded('temperature', request.temperature, 0.01, 1, warnings);
  if (request.top_p != null) out.top_p = bounded('top_p', request.top_p, 0.01, 0.99, warnings);
  const stream = request.stream === true;
  if (stream) out.incremental = true;
  return { body: { ...out, ...context.channel.param_override }, warnings, stream };
}

function bounded(name: string, value: number, min: number, max: number, warnings: string[]): number {
  const sent = Math.min(max, Math.max(min, value));
  if (sent !== value) warnings.push(`${name} ${value} is outside what Zhipu v3 takes and was sent as ${sent}`);
  return sent;
}

/**
 * The messages as v3 `prompt` turns: user and assistant alternate (consecutive messages of a side
 * joined by a blank line); v3 has no system role, so the system text opens the first user turn.
 * Images, tool calls and tool results cannot be sent and are reported.
 */
function zhipuPrompt(messages: ChatMessage[], warnings: string[]): ZhipuTurn[] {
  const { system, turns } = textOnlyTurns(messages, warnings, 'Zhipu v3');
  const prompt = turns.map((turn): ZhipuTurn => ({ role: turn.role, content: turn.items.join('\n\n') }));
  if (system !== '') {
    const first = prompt[0];
    if (first?.role === 'user') first.content = `${system}\n\n${first.content}`;
    else prompt.unshift({ role: 'user', content: system });
  }
  return prompt;
}

const count = z
  .number()
  .nullish()
  .transform((value) => (value != null && Number.isFinite(value) ? value : 0));
export const zhipuUsageSchema = z.object({ prompt_tokens: count, completion_tokens: count, total_tokens: count });

/** Zhipu's usage as ours; null when it gave none. */
export function usageFromZhipu(usage: z.infer<typeof zhipuUsageSchema> | null | undefined): Usage | null {
  return usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cached_tokens: 0 } : null;
}

/** The envelope of every v3 answer: `{code, msg, success, data}`; `data` is the operation's. */
function zhipuEnvelope<Data>(data: z.ZodType<Data>) {
  return z.object({
    code: z.union([z.number(), z.string()]).nullish(),
    msg: z.string().nullish(),
    success: z.boolean().nullish(),
    data: data.nullish(),
  });
}

const chatDataSchema = z.object({
  request_id: z.string().nullish(),
  task_id: z.string().nullish(),
  task_status: z.string().nullish(),
  choices: z.array(z.object({ role: z.string().nullish(), content: z.string().nullish() })).nullish(),
  usage: zhipuUsageSchema.nullish(),
});

/** The `data` of a successful v3 answer; `success: false` or a failed task is thrown as the error it is. */
export function zhipuData<Data extends { task_status?: string | null }>(schema: z.ZodType<Data>, json: unknown): Data {
  const answer = parseUpstream(zhipuEnvelope(schema), json, 'zhipu');
  const data = answer.data;
  if (answer.success === false || !data) throw new ZhipuAnswerError(answer.code ?? 'zhipu_error', answer.msg || 'Zhipu answered without a result');
  if (data.task_status === 'FAIL') throw new ZhipuAnswerError('task_failed', answer.msg || 'the Zhipu task failed');
  return data;
}

/**
 * v3 returns the content as a JSON string literal (its default `return_type`, json_string),
 * quotes and escapes included: decoded here; anything else is taken as it is.
 */
export function zhipuText(content: string): string {
  if (content.length < 2 || !content.startsWith('"') || !content.endsWith('"')) return content;
  try {
    const decoded: unknown = JSON.parse(content);
    if (typeof decoded === 'string') return decoded;
  } catch {
    // not a JSON literal after all
  }
  return content.slice(1, -1);
}

/** A v3 invoke answer as a chat completion; its usage is the upstream's. */
export function zhipuChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const data = zhipuData(chatDataSchema, json);
  const usage = usageFromZhipu(data.usage);
  const content = (data.choices ?? []).map((choice) => zhipuText(choice.content ?? '')).join('');
  const body = chatCompletion({
    id: data.task_id ?? data.request_id ?? 'chatcmpl-zhipu',
    model: context.upstreamModel,
    content,
    reasoning: '',
    toolCalls: [],
    finishReason: 'stop',
    usage,
  });
  return { body, usage };
}
