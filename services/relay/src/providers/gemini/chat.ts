import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { contentText, ignoredRequestKeys, parseChatRequest, type ChatMessage, type ChatRequest, type ContentPart } from '../shared/chat-request.js';
import { parseDataUrl, parseJsonObject, toolArguments } from '../shared/content.js';
import { chatCompletion, type FinishReason, type ToolCallOutput } from '../shared/openai-format.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { foldTurns } from '../shared/turns.js';

type Part = Record<string, unknown>;
interface GeminiContent {
  role: 'user' | 'model';
  parts: Part[];
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
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'response_format',
]);

/** OpenAI chat request -> generateContent body, with the parameters that had to be dropped. */
export function geminiChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Gemini and was dropped`);
  const { system, contents } = convertMessages(request.messages, warnings);

  const out: Record<string, unknown> = { contents };
  if (system !== '') out.systemInstruction = { parts: [{ text: system }] };
  if (request.tools?.length) {
    out.tools = [
      {
        functionDeclarations: request.tools.map(({ function: tool }) => ({
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          ...(tool.parameters ? { parameters: geminiSchema(tool.parameters) } : {}),
        })),
      },
    ];
  }
  const toolConfig = convertToolChoice(request.tool_choice);
  if (toolConfig) out.toolConfig = toolConfig;
  const generationConfig = convertGenerationConfig(request, warnings);
  if (Object.keys(generationConfig).length > 0) out.generationConfig = generationConfig;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

/**
 * System and developer messages become `systemInstruction`; assistant is `model`; tool results
 * are user `functionResponse` parts named after the call they answer. Consecutive messages of
 * one role are merged (parallel tool results must share one turn).
 */
function convertMessages(input: ChatMessage[], warnings: string[]): { system: string; contents: GeminiContent[] } {
  const toolNames = new Map<string, string>();
  const { system, turns } = foldTurns<GeminiContent['role'], Part>(input, warnings, {
    provider: 'Gemini',
    userRole: 'user',
    assistantRole: 'model',
    user: (message) => contentParts(message.content, warnings),
    assistant: (message) => {
      const calls = (message.tool_calls ?? []).map((call) => {
        if (call.id) toolNames.set(call.id, call.function.name);
        return { functionCall: { name: call.function.name, args: toolArguments(call.function.arguments, warnings) } };
      });
      return [...contentParts(message.content, warnings), ...calls];
    },
    tool: (message) => {
      const name = (message.tool_call_id ? toolNames.get(message.tool_call_id) : undefined) ?? message.name ?? message.tool_call_id ?? '';
      return [{ functionResponse: { name, response: functionResponse(contentText(message.content)) } }];
    },
  });
  return { system, contents: turns.map(({ role, items }) => ({ role, parts: items })) };
}

function contentParts(content: ChatMessage['content'], warnings: string[]): Part[] {
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: Part[] = [];
  for (const part of content) {
    const converted = geminiPart(part);
    if (converted) parts.push(converted);
    else warnings.push(`content part "${part.type === 'other' ? part.originalType : part.type}" is not supported by Gemini and was dropped`);
  }
  return parts;
}

/**
 * Data URLs become `inlineData`. Other URLs are passed as `fileData` (Gemini reads File API,
 * Cloud Storage and YouTube URIs there); the relay never downloads images itself.
 */
function geminiPart(part: ContentPart): Part | null {
  if (part.type === 'text') return part.text === '' ? null : { text: part.text };
  if (part.type !== 'image_url') return null;
  const inline = parseDataUrl(part.url);
  if (inline) return { inlineData: { mimeType: inline.mediaType, data: inline.data } };
  if (/^(https?|gs):\/\//i.test(part.url)) return { fileData: { mimeType: mimeTypeOf(part.url), fileUri: part.url } };
  return null;
}

const imageTypes: Record<string, string> = { png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic', heif: 'image/heif' };
function mimeTypeOf(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return imageTypes[extension] ?? 'image/jpeg';
}

/** A tool result that is a JSON object is sent as is; anything else is wrapped (Gemini wants an object). */
function functionResponse(text: string): Record<string, unknown> {
  return parseJsonObject(text) ?? { content: text };
}

/** Gemini's schema dialect (an OpenAPI subset) rejects these JSON Schema keywords with a 400. */
const unsupportedSchemaKeys = new Set(['$schema', 'additionalProperties', 'strict']);
function geminiSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(geminiSchema);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !unsupportedSchemaKeys.has(key))
      .map(([key, item]) => [key, geminiSchema(item)]),
  );
}

function convertToolChoice(choice: ChatRequest['tool_choice']): Record<string, unknown> | null {
  if (choice == null) return null;
  if (typeof choice === 'object') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  const mode = { auto: 'AUTO', none: 'NONE', required: 'ANY' }[choice];
  return mode ? { functionCallingConfig: { mode } } : null;
}

function convertGenerationConfig(request: ChatRequest, warnings: string[]): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (request.stop != null) config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.presence_penalty != null) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty != null) config.frequencyPenalty = request.frequency_penalty;
  if (request.seed != null) config.seed = request.seed;
  const format = request.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') config.responseMimeType = 'application/json';
  if (format === 'json_schema') warnings.push('response_format json_schema: JSON output is requested, the schema itself was dropped');
  return config;
}

const partSchema = z.object({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  functionCall: z.object({ id: z.string().nullish(), name: z.string(), args: z.record(z.string(), z.unknown()).nullish() }).nullish(),
});
const usageMetadataSchema = z.object({
  promptTokenCount: z.number().nullish(),
  candidatesTokenCount: z.number().nullish(),
  thoughtsTokenCount: z.number().nullish(),
  cachedContentTokenCount: z.number().nullish(),
});
/** One `GenerateContentResponse`: the whole answer, or one chunk of a stream. */
export const generateContentSchema = z.object({
  candidates: z
    .array(
      z.object({
        content: z.object({ parts: z.array(partSchema).nullish() }).nullish(),
        finishReason: z.string().nullish(),
      }),
    )
    .nullish(),
  usageMetadata: usageMetadataSchema.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
  promptFeedback: z.object({ blockReason: z.string().nullish() }).nullish(),
});
export type GenerateContentResponse = z.infer<typeof generateContentSchema>;
export type GeminiPart = z.infer<typeof partSchema>;

/** Thinking tokens are billed as output, so they count as completion. */
export function usageFromGemini(usage: z.infer<typeof usageMetadataSchema>): Usage {
  return {
    prompt_tokens: usage.promptTokenCount ?? 0,
    completion_tokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
    cached_tokens: usage.cachedContentTokenCount ?? 0,
  };
}

const filterReasons = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);
export function finishReasonFromGemini(reason: string | null | undefined, hasToolCalls: boolean): FinishReason | null {
  if (reason == null) return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (filterReasons.has(reason)) return 'content_filter';
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/** A function call as an OpenAI tool call; Gemini's call id when it sends one. */
export function toolCallFromGemini(call: NonNullable<GeminiPart['functionCall']>, index: number): ToolCallOutput {
  return { id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
}

export function geminiChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const response = parseUpstream(generateContentSchema, json, 'gemini');
  const candidate = response.candidates?.[0];
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCallOutput[] = [];
  for (const part of candidate?.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCallFromGemini(part.functionCall, toolCalls.length));
    else if (part.text && part.thought) reasoning += part.text;
    else if (part.text) content += part.text;
  }
  // A prompt blocked before any candidate was produced.
  const finishReason = candidate
    ? finishReasonFromGemini(candidate.finishReason, toolCalls.length > 0)
    : response.promptFeedback?.blockReason
      ? 'content_filter'
      : null;
  const usage = response.usageMetadata ? usageFromGemini(response.usageMetadata) : null;
  const body = chatCompletion({
    id: response.responseId ?? 'chatcmpl-gemini',
    model: response.modelVersion ?? context.upstreamModel,
    content,
    reasoning,
    toolCalls,
    finishReason,
    usage,
  });
  return { body, usage };
}
