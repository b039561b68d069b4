import { chatMessageSchema, chatToolSchema, type ChatMessage, type ChatTool } from '../providers/shared/chat-request.js';
import { countText } from './encodings.js';
import { imageSizeFromDataUrl, imageTokens } from './image-tokens.js';
import { jsonText } from './json-text.js';

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
