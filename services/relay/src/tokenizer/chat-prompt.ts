import { chatMessageSchema, chatToolSchema, type ChatMessage, type ChatTool } from '../providers/shared/chat-request.js';
import { countText, textTokenBound } from './encodings.js';
import { imageSizeFromDataUrl, imageTokens } from './image-tokens.js';
import { jsonText, jsonTextBytes } from './json-text.js';

/** Fixed costs of OpenAI's chat format (docs/compatibility.md section 3.6). */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const REPLY_PRIMING_TOKENS = 3;
const TOOLS_OVERHEAD_TOKENS = 8;
const AUDIO_PART_TOKENS = 100;
const FILE_PART_TOKENS = 5000;

/**
 * Estimated prompt tokens of a chat request, for the reservation and for settling when the
 * upstream reports no usage: per message 3 + role + content (+1 + name), 3 for reply priming,
 * images per `imageTokens`, audio parts 100, file parts 5,000, and when tools are given 8 +
 * every tool's name, description and parameters JSON. Assistant tool calls count their name and
 * arguments. Takes the client's JSON as is: a message that does not parse is counted as its JSON
 * text, so a strange body is over- rather than under-estimated (validation is not this module's job);
 * JSON text is built without recursion, so no depth of nesting can overflow the stack.
 */
export function countChatPrompt(messages: unknown, model: string, tools?: unknown): number {
  let tokens = REPLY_PRIMING_TOKENS;
  if (Array.isArray(messages)) {
    for (const raw of messages) {
      const parsed = chatMessageSchema.safeParse(raw);
      tokens += parsed.success ? countMessage(parsed.data, model) : countText(jsonText(raw), model);
    }
  }
  if (Array.isArray(tools) && tools.length > 0) {
    tokens += TOOLS_OVERHEAD_TOKENS;
    for (const raw of tools) {
      const parsed = chatToolSchema.safeParse(raw);
      tokens += parsed.success ? countTool(parsed.data, model) : countText(jsonText(raw), model);
    }
  }
  return tokens;
}

function countMessage(message: ChatMessage, model: string): number {
  let tokens = TOKENS_PER_MESSAGE + countText(message.role, model);
  if (message.name) tokens += TOKENS_PER_NAME + countText(message.name, model);
  const content = message.content;
  if (typeof content === 'string') {
    tokens += countText(content, model);
  } else if (content) {
    for (const part of content) {
      if (part.type === 'text') tokens += countText(part.text, model);
      else if (part.type === 'image_url') tokens += imageTokens(part.detail, imageSizeFromDataUrl(part.url));
      else if (part.originalType === 'input_audio') tokens += AUDIO_PART_TOKENS;
      else if (part.originalType === 'file') tokens += FILE_PART_TOKENS;
    }
  }
  for (const call of message.tool_calls ?? []) {
    tokens += countText(call.function.name, model) + countText(call.function.arguments ?? '', model);
  }
  return tokens;
}

function countTool(tool: ChatTool, model: string): number {
  const { name, description, parameters } = tool.function;
  return countText(name, model) + countText(description ?? '', model) + (parameters ? countText(jsonText(parameters), model) : 0);
}

/**
 * At least `countChatPrompt(messages, model, tools)` for every model and every input, without a
 * tokenizer pass: the same sum with each text's UTF-8 bytes in place of its tokens
 * (`textTokenBound`), the same fixed costs, images, audio and file parts at what the count charges
 * them (the image rule reads at most a data URL's header). A message or tool that the count takes
 * as its JSON text is bounded by that text's bytes, summed without building it. Which way the
 * count takes each one is decided as the schema would, without parsing (`isChatMessage`,
 * `isChatTool`): the bound must follow the count's branch, or a short image URL (255 tokens) could
 * be bounded by its few bytes of JSON.
 */
export function chatPromptBound(messages: unknown, tools?: unknown): number {
  let tokens = REPLY_PRIMING_TOKENS;
  if (Array.isArray(messages)) {
    for (const raw of messages as unknown[]) tokens += isChatMessage(raw) ? messageBound(raw) : jsonTextBytes(raw);
  }
  if (Array.isArray(tools) && tools.length > 0) {
    tokens += TOOLS_OVERHEAD_TOKENS;
    for (const raw of tools as unknown[]) tokens += isChatTool(raw) ? toolBound(raw) : jsonTextBytes(raw);
  }
  return tokens;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isOptionalString = (value: unknown): value is string | null | undefined => value === undefined || value === null || typeof value === 'string';

/**
 * Whether `chatMessageSchema` accepts the value (then the count reads its fields; otherwise its
 * JSON text). Kept equal to the schema by a test over random messages
 * (test/tokenizer/prompt-bound.test.ts): change both together.
 */
export function isChatMessage(value: unknown): value is Json {
  if (!isObject(value) || typeof value.role !== 'string') return false;
  if (!isOptionalString(value.name) || !isOptionalString(value.tool_call_id)) return false;
  const content = value.content;
  // A part of any other shape than text or image_url still parses (as `other`) when it has a string type.
  if (Array.isArray(content)) {
    if (!(content as unknown[]).every((part) => isObject(part) && typeof part.type === 'string')) return false;
  } else if (!isOptionalString(content)) {
    return false;
  }
  const calls = value.tool_calls;
  if (calls === undefined || calls === null) return true;
  return Array.isArray(calls) && (calls as unknown[]).every(isToolCall);
}

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || !isOptionalString(value.id) || !isOptionalString(value.type)) return false;
  const fn = value.function;
  return isObject(fn) && typeof fn.name === 'string' && isOptionalString(fn.arguments);
}

/** Whether `chatToolSchema` accepts the value (same test as `isChatMessage`). */
export function isChatTool(value: unknown): value is Json {
  if (!isObject(value) || !isOptionalString(value.type)) return false;
  const fn = value.function;
  if (!isObject(fn) || typeof fn.name !== 'string' || !isOptionalString(fn.description)) return false;
  return fn.parameters === undefined || fn.parameters === null || isObject(fn.parameters);
}

/** `countMessage` with bytes for tokens; the message is one `isChatMessage` accepts. */
function messageBound(message: Json): number {
  let tokens = TOKENS_PER_MESSAGE + textTokenBound(message.role as string);
  if (typeof message.name === 'string' && message.name !== '') tokens += TOKENS_PER_NAME + textTokenBound(message.name);
  const content = message.content;
  if (typeof content === 'string') {
    tokens += textTokenBound(content);
  } else if (Array.isArray(content)) {
    for (const part of content as Json[]) tokens += partBound(part);
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as Json[]) {
      const fn = call.function as Json;
      tokens += textTokenBound(fn.name as string) + (typeof fn.arguments === 'string' ? textTokenBound(fn.arguments) : 0);
    }
  }
  return tokens;
}

/**
 * A content part as the schema reads it: text, an image_url (a string, or `{url, detail}`), else
 * `other` by its type name; a text or image_url part of another shape is `other` too, and costs
 * nothing.
 */
function partBound(part: Json): number {
  if (part.type === 'text') return typeof part.text === 'string' ? textTokenBound(part.text) : 0;
  if (part.type === 'image_url') {
    const image = part.image_url;
    if (typeof image === 'string') return imageTokens(undefined, imageSizeFromDataUrl(image));
    if (isObject(image) && typeof image.url === 'string' && isOptionalString(image.detail)) {
      return imageTokens(image.detail ?? undefined, imageSizeFromDataUrl(image.url));
    }
    return 0;
  }
  if (part.type === 'input_audio') return AUDIO_PART_TOKENS;
  if (part.type === 'file') return FILE_PART_TOKENS;
  return 0;
}

/** `countTool` with bytes for tokens; the tool is one `isChatTool` accepts. */
function toolBound(tool: Json): number {
  const { name, description, parameters } = tool.function as Json;
  return (
    textTokenBound(name as string) +
    (typeof description === 'string' ? textTokenBound(description) : 0) +
    (isObject(parameters) ? jsonTextBytes(parameters) : 0)
  );
}
