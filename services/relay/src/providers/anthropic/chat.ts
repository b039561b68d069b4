import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { contentText, ignoredRequestKeys, parseChatRequest, type ChatMessage, type ChatRequest, type ContentPart } from '../shared/chat-request.js';
import { parseDataUrl, toolArguments } from '../shared/content.js';
import { chatCompletion, type FinishReason, type ToolCallOutput } from '../shared/openai-format.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { foldTurns } from '../shared/turns.js';

/** Anthropic requires max_tokens; used when the client gives none (the established product's `claude.default_max_tokens`). */
export const DEFAULT_MAX_TOKENS = 8192;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** OpenAI parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set([
  ...ignoredRequestKeys,
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'user',
]);

/** OpenAI chat request -> Messages API body, with the parameters that had to be dropped. */
export function anthropicChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Anthropic and was dropped`);
  const { system, messages } = convertMessages(request.messages, warnings);

  const out: Record<string, unknown> = {
    model: context.upstreamModel,
    messages,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_TOKENS,
  };
  if (system !== '') out.system = system;
  if (request.temperature != null) out.temperature = request.temperature;
  if (request.top_p != null) out.top_p = request.top_p;
  if (request.stop != null) out.stop_sequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.stream) out.stream = true;
  if (request.user) out.metadata = { user_id: request.user };
  if (request.tools?.length) {
    out.tools = request.tools.map(({ function: tool }) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: tool.parameters ?? { type: 'object', properties: {} },
    }));
  }
  const toolChoice = convertToolChoice(request);
  if (toolChoice) out.tool_choice = toolChoice;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

/**
 * System and developer messages become `system`; tool results become user `tool_result` blocks;
 * consecutive messages of one role are merged, since Anthropic wants user and assistant to alternate.
 */
function convertMessages(input: ChatMessage[], warnings: string[]): { system: string; messages: AnthropicMessage[] } {
  const { system, turns } = foldTurns<AnthropicMessage['role'], Block>(input, warnings, {
    provider: 'Anthropic',
    userRole: 'user',
    assistantRole: 'assistant',
    user: (message) => contentBlocks(message.content, warnings),
    assistant: (message) => [...contentBlocks(message.content, warnings), ...toolUseBlocks(message, warnings)],
    tool: (message) => [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: contentText(message.content) }],
  });
  return { system, messages: turns.map(({ role, items }) => ({ role, content: items })) };
}

function contentBlocks(content: ChatMessage['content'], warnings: string[]): Block[] {
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Block[] = [];
  for (const part of content) {
    const block = partBlock(part);
    if (block) blocks.push(block);
    else warnings.push(`content part "${part.type === 'other' ? part.originalType : part.type}" is not supported by Anthropic and was dropped`);
  }
  return blocks;
}

/** A text part, or an image: data URLs as base64 sources, http(s) URLs as url sources. */
function partBlock(part: ContentPart): Block | null {
  if (part.type === 'text') return part.text === '' ? null : { type: 'text', text: part.text };
  if (part.type !== 'image_url') return null;
  const inline = parseDataUrl(part.url);
  if (inline) return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } };
  if (/^https?:\/\//i.test(part.url)) return { type: 'image', source: { type: 'url', url: part.url } };
  return null;
}

function toolUseBlocks(message: ChatMessage, warnings: string[]): Block[] {
  return (message.tool_calls ?? []).map((call, index) => ({
    type: 'tool_use',
    id: call.id ?? `call_${index}`,
    name: call.function.name,
    input: toolArguments(call.function.arguments, warnings),
  }));
}

function convertToolChoice(request: ChatRequest): Block | null {
  const choice = request.tool_choice;
  const parallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice == null) return request.parallel_tool_calls === false && request.tools?.length ? { type: 'auto', ...parallel } : null;
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (choice === 'none') return { type: 'none' };
  return { type: 'auto', ...parallel };
}

export const anthropicUsageSchema = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});
export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

/**
 * Anthropic's `input_tokens` excludes cache reads and writes; OpenAI's prompt includes them, so
 * all three are added; the reads are the cached part and the writes are billed at their own
 * ratio, the same whichever API the client called (the established product's users found the
 * two disagreeing).
 */
export function usageFromAnthropic(usage: AnthropicUsage): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    prompt_tokens: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    completion_tokens: usage.output_tokens ?? 0,
    cached_tokens: cacheRead,
    ...(cacheWrite > 0 ? { cache_creation_tokens: cacheWrite } : {}),
  };
}

export function finishReasonFromAnthropic(stopReason: string | null | undefined): FinishReason | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default: // end_turn, stop_sequence, pause_turn
      return 'stop';
  }
}

const messageSchema = z.object({
  id: z.string().nullish(),
  model: z.string().nullish(),
  content: z.array(
    z.object({
      type: z.string(),
      text: z.string().nullish(),
      thinking: z.string().nullish(),
      id: z.string().nullish(),
      name: z.string().nullish(),
      input: z.unknown().optional(),
    }),
  ),
  stop_reason: z.string().nullish(),
  usage: anthropicUsageSchema.nullish(),
});

export function anthropicChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const message = parseUpstream(messageSchema, json, 'anthropic');
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCallOutput[] = [];
  for (const block of message.content) {
    if (block.type === 'text' && block.text) content += block.text;
    else if (block.type === 'thinking' && block.thinking) reasoning += block.thinking;
    else if (block.type === 'tool_use' && block.name) {
      toolCalls.push({
        id: block.id ?? `call_${toolCalls.length}`,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const usage = message.usage ? usageFromAnthropic(message.usage) : null;
  const body = chatCompletion({
    id: message.id ?? 'chatcmpl-anthropic',
    model: message.model ?? context.upstreamModel,
    content,
    reasoning,
    toolCalls,
    finishReason: finishReasonFromAnthropic(message.stop_reason),
    usage,
  });
  return { body, usage };
}
