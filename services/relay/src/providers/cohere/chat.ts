import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { contentText, ignoredRequestKeys, parseChatRequest, type ChatMessage, type ChatRequest } from '../shared/chat-request.js';
import { chatCompletion, type FinishReason, type ToolCallOutput } from '../shared/openai-format.js';
import { parseUpstream } from '../shared/upstream-response.js';

type CohereMessage = Record<string, unknown>;

/** OpenAI parameters this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set([
  ...ignoredRequestKeys,
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'frequency_penalty',
  'presence_penalty',
  'tools',
  'tool_choice',
  'response_format',
]);

/** OpenAI chat request -> Cohere v2 chat body (`POST /v2/chat`), with the parameters that had to be dropped. */
export function cohereChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Cohere and was dropped`);

  const out: Record<string, unknown> = { model: context.upstreamModel, messages: convertMessages(request.messages, warnings) };
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) out.max_tokens = maxTokens;
  if (request.temperature != null) out.temperature = request.temperature;
  if (request.top_p != null) out.p = request.top_p;
  if (request.stop != null) out.stop_sequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.seed != null) out.seed = request.seed;
  if (request.frequency_penalty != null) out.frequency_penalty = request.frequency_penalty;
  if (request.presence_penalty != null) out.presence_penalty = request.presence_penalty;
  // Cohere's tools are OpenAI's function tools, field for field.
  if (request.tools?.length) {
    out.tools = request.tools.map(({ function: tool }) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        ...(tool.parameters ? { parameters: tool.parameters } : {}),
      },
    }));
  }
  const toolChoice = convertToolChoice(request.tool_choice, warnings);
  if (toolChoice) out.tool_choice = toolChoice;
  const responseFormat = convertResponseFormat(request.response_format);
  if (responseFormat) out.response_format = responseFormat;
  if (request.stream) out.stream = true;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

/**
 * Cohere takes OpenAI's four roles as they are (developer becomes system): tool results are `tool`
 * messages naming their call, an assistant's calls its `tool_calls` with the arguments as a JSON
 * string. An assistant message with nothing to say is left out; another role is dropped with a warning.
 */
function convertMessages(input: ChatMessage[], warnings: string[]): CohereMessage[] {
  const messages: CohereMessage[] = [];
  for (const message of input) {
    switch (message.role) {
      case 'system':
      case 'developer':
        messages.push({ role: 'system', content: contentText(message.content) });
        break;
      case 'user':
        messages.push({ role: 'user', content: userContent(message.content, warnings) });
        break;
      case 'assistant': {
        const text = contentText(message.content);
        const calls = (message.tool_calls ?? []).map((call, index) => ({
          id: call.id ?? `call_${index}`,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments || '{}' },
        }));
        if (text === '' && calls.length === 0) break;
        messages.push({ role: 'assistant', ...(text !== '' ? { content: text } : {}), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
        break;
      }
      case 'tool':
        messages.push({ role: 'tool', tool_call_id: message.tool_call_id ?? '', content: contentText(message.content) });
        break;
      default:
        warnings.push(`message role "${message.role}" is not supported by Cohere and was dropped`);
    }
  }
  return messages;
}

/** A string stays a string; parts become Cohere's text and image_url parts (vision models read the images). */
function userContent(content: ChatMessage['content'], warnings: string[]): string | Array<Record<string, unknown>> {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  const parts: Array<Record<string, unknown>> = [];
  for (const part of content) {
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url') parts.push({ type: 'image_url', image_url: { url: part.url, ...(part.detail ? { detail: part.detail } : {}) } });
    else warnings.push(`content part "${part.originalType}" is not supported by Cohere and was dropped`);
  }
  return parts;
}

/** `auto` is Cohere's default (sent as nothing); Cohere cannot force one named function, only some tool call. */
function convertToolChoice(choice: ChatRequest['tool_choice'], warnings: string[]): string | null {
  if (choice == null || choice === 'auto') return null;
  if (choice === 'none') return 'NONE';
  if (choice === 'required') return 'REQUIRED';
  if (typeof choice === 'object') {
    warnings.push(`tool_choice "${choice.function.name}": Cohere can require a tool call but not name the function; the name was dropped`);
    return 'REQUIRED';
  }
  warnings.push(`tool_choice "${choice}" is not supported by Cohere and was dropped`);
  return null;
}

const jsonSchemaFormat = z.object({ json_schema: z.object({ schema: z.record(z.string(), z.unknown()).nullish() }).nullish() });

/** JSON output: `json_object` as is, `json_schema` as a json_object with Cohere's `json_schema` (the schema itself). */
function convertResponseFormat(format: ChatRequest['response_format']): Record<string, unknown> | null {
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type !== 'json_schema') return null;
  const schema = jsonSchemaFormat.safeParse(format).data?.json_schema?.schema;
  return { type: 'json_object', ...(schema ? { json_schema: schema } : {}) };
}

const tokenCounts = z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() });
/** Cohere's usage: what it bills (`billed_units`) and what the model read and wrote (`tokens`, its own prompt template included). */
export const cohereUsageSchema = z.object({ billed_units: tokenCounts.nullish(), tokens: tokenCounts.nullish() });
export type CohereUsage = z.infer<typeof cohereUsageSchema>;

/**
 * The billed units are what the channel's account pays for, so they are what we charge; `tokens`
 * (larger: it counts Cohere's own prompt template) only fills a count the billed units lack.
 * Null when Cohere reported neither.
 */
export function usageFromCohere(usage: CohereUsage | null | undefined): Usage | null {
  if (!usage?.billed_units && !usage?.tokens) return null;
  return {
    prompt_tokens: usage.billed_units?.input_tokens ?? usage.tokens?.input_tokens ?? 0,
    completion_tokens: usage.billed_units?.output_tokens ?? usage.tokens?.output_tokens ?? 0,
    cached_tokens: 0,
  };
}

export function finishReasonFromCohere(reason: string | null | undefined): FinishReason | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case 'MAX_TOKENS':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    default: // COMPLETE, STOP_SEQUENCE, and ERROR or TIMEOUT (OpenAI has no word for them)
      return 'stop';
  }
}

const toolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
export type CohereToolCall = z.infer<typeof toolCallSchema>;

const chatResponseSchema = z.object({
  id: z.string().nullish(),
  finish_reason: z.string().nullish(),
  message: z.object({
    content: z.array(z.object({ type: z.string(), text: z.string().nullish(), thinking: z.string().nullish() })).nullish(),
    tool_plan: z.string().nullish(),
    tool_calls: z.array(toolCallSchema).nullish(),
  }),
  usage: cohereUsageSchema.nullish(),
});

/**
 * A v2 chat answer as a chat completion: text parts are the content; thinking parts and the tool
 * plan (what the model means to do with its tools) are reasoning_content; tool calls keep their ids.
 */
export function cohereChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const response = parseUpstream(chatResponseSchema, json, 'cohere');
  let content = '';
  let reasoning = response.message.tool_plan ?? '';
  for (const part of response.message.content ?? []) {
    if (part.type === 'text' && part.text) content += part.text;
    else if (part.type === 'thinking' && part.thinking) reasoning += part.thinking;
  }
  const toolCalls: ToolCallOutput[] = [];
  for (const call of response.message.tool_calls ?? []) {
    if (!call.function?.name) continue;
    toolCalls.push({
      id: call.id ?? `call_${toolCalls.length}`,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments ?? '{}' },
    });
  }
  const usage = usageFromCohere(response.usage);
  const body = chatCompletion({
    id: response.id ?? 'chatcmpl-cohere',
    model: context.upstreamModel,
    content,
    reasoning,
    toolCalls,
    finishReason: finishReasonFromCohere(response.finish_reason),
    usage,
  });
  return { body, usage };
}
