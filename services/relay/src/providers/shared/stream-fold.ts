import type { ChatResult, ProviderContext, ProviderDefinition, StreamOutput, Usage } from '../types.js';
import { chatOf } from '../types.js';
import { SseParser } from '../../sse/sse-parser.js';
import { UpstreamAnswerError } from './upstream-error.js';
import { isRecord } from './content.js';

const objectOf = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

interface ToolCall {
  id?: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface Choice {
  content: string;
  reasoning: string;
  toolCalls: ToolCall[];
  finishReason: unknown;
}

/**
 * A whole chat answer from an upstream that only streams (iFlytek Spark's socket; Coze, whose
 * blocking mode needs polling): the events run through the provider's own stream converter and
 * the OpenAI chunks it makes are folded into one `chat.completion`, so the stream mapping is the
 * only one there is. An error inside the stream is the channel's failure, as an error answered
 * by a blocking call is (UpstreamAnswerError with the status the provider gave it, else 502).
 */
export function foldStream(provider: ProviderDefinition, text: string, context: ProviderContext): ChatResult {
  const converter = chatOf(provider).stream(context);
  const framer = provider.framing?.() ?? new SseParser();
  const outputs: StreamOutput[] = [];
  for (const event of [...framer.push(Buffer.from(text, 'utf8')), ...framer.end()]) {
    if (event.data !== '[DONE]') outputs.push(...converter.onEvent(event));
  }
  outputs.push(...converter.onEnd());

  let id = '';
  let model = context.upstreamModel;
  let created = Math.floor(Date.now() / 1000);
  let usage: Usage | null = null;
  const choices = new Map<number, Choice>();
  for (const output of outputs) {
    if (output.error) throw new UpstreamAnswerError(output.error, output.error.status ?? 502);
    if (output.usage) usage = output.usage;
    if (output.data === undefined) continue;
    const chunk = objectOf(JSON.parse(output.data));
    if (typeof chunk.id === 'string' && id === '') id = chunk.id;
    if (typeof chunk.model === 'string') model = chunk.model;
    if (typeof chunk.created === 'number') created = chunk.created;
    for (const raw of Array.isArray(chunk.choices) ? chunk.choices : []) fold(choices, objectOf(raw));
  }
  if (choices.size === 0) choices.set(0, { content: '', reasoning: '', toolCalls: [], finishReason: 'stop' });
  const body: Record<string, unknown> = {
    id: id || `chatcmpl-${Date.now().toString(36)}`,
    object: 'chat.completion',
    created,
    model,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, choice]) => ({
        index,
        message: {
          role: 'assistant',
          content: choice.content === '' && choice.toolCalls.length > 0 ? null : choice.content,
          ...(choice.reasoning ? { reasoning_content: choice.reasoning } : {}),
          ...(choice.toolCalls.length > 0 ? { tool_calls: choice.toolCalls } : {}),
        },
        finish_reason: choice.finishReason ?? 'stop',
      })),
    ...(usage
      ? {
          usage: {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.prompt_tokens + usage.completion_tokens,
            ...(usage.cached_tokens > 0 ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } } : {}),
          },
        }
      : {}),
  };
  return { body, usage };
}

/** One chunk choice's delta added to what its index holds so far. */
function fold(choices: Map<number, Choice>, raw: Record<string, unknown>): void {
  const index = typeof raw.index === 'number' ? raw.index : 0;
  let choice = choices.get(index);
  if (!choice) {
    choice = { content: '', reasoning: '', toolCalls: [], finishReason: null };
    choices.set(index, choice);
  }
  if (raw.finish_reason !== undefined && raw.finish_reason !== null) choice.finishReason = raw.finish_reason;
  const delta = objectOf(raw.delta);
  if (typeof delta.content === 'string') choice.content += delta.content;
  if (typeof delta.reasoning_content === 'string') choice.reasoning += delta.reasoning_content;
  for (const rawCall of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
    const call = objectOf(rawCall);
    const position = typeof call.index === 'number' ? call.index : choice.toolCalls.length;
    const fn = objectOf(call.function);
    const held = (choice.toolCalls[position] ??= { type: 'function', function: { name: '', arguments: '' } });
    if (typeof call.id === 'string') held.id = call.id;
    if (typeof fn.name === 'string') held.function.name += fn.name;
    if (typeof fn.arguments === 'string') held.function.arguments += fn.arguments;
  }
}
