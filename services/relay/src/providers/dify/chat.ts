import { z } from 'zod';
import type { ChatResult, ProviderContext, Usage } from '../types.js';
import { contentText, InvalidChatRequestError, parseChatRequest, type ChatMessage } from '../shared/chat-request.js';
import { chatCompletion } from '../shared/openai-format.js';
import { parseUpstream } from '../shared/upstream-response.js';

/** The end user Dify is told about: the relay keeps no conversation state, so one name serves every call. */
export const DIFY_USER = 'aigw';

/** The keys a Dify call takes from the client's body; every other one is dropped with a warning (the app sets its model's parameters). */
const mappedKeys = new Set(['model', 'messages', 'stream', 'stream_options']);

const speakers: Record<string, string> = { system: 'System', developer: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' };

/**
 * OpenAI chat request -> Dify's `POST /v1/chat-messages` body: `query` is the last user message's
 * text, with the earlier turns folded into it as a transcript (`User: ...`, `Assistant: ...`, one
 * paragraph each, ending with the last user message) since every call opens a new conversation
 * (`conversation_id: ''`: the relay keeps no state); `response_mode` blocking or streaming;
 * `inputs` empty unless the channel's `param_override` sets the app's variables. Images of the last
 * user message given by http(s) URL go as `files` (remote_url); anything else that cannot be sent
 * is dropped with a warning.
 */
export function difyChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Dify and was dropped (the Dify app sets its own)`);

  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  if (lastUser === -1) throw new InvalidChatRequestError('a Dify app answers a user message: the request has none');
  if (lastUser < request.messages.length - 1) {
    warnings.push(`${request.messages.length - 1 - lastUser} message(s) after the last user message are not supported by Dify and were dropped`);
  }

  const paragraphs: string[] = [];
  for (const message of request.messages.slice(0, lastUser)) {
    const speaker = speakers[message.role];
    if (!speaker) {
      warnings.push(`message role "${message.role}" is not supported by Dify and was dropped`);
      continue;
    }
    if (Array.isArray(message.content) && message.content.some((part) => part.type !== 'text')) {
      warnings.push('images and other non-text parts of earlier messages are not supported by Dify and were dropped');
    }
    const text = turnText(message);
    if (text !== '') paragraphs.push(`${speaker}: ${text}`);
  }
  const last = request.messages[lastUser]!;
  const lastText = contentText(last.content);
  const query = paragraphs.length === 0 ? lastText : [...paragraphs, `User: ${lastText}`].join('\n\n');

  const out: Record<string, unknown> = {
    inputs: {},
    query,
    response_mode: request.stream ? 'streaming' : 'blocking',
    user: DIFY_USER,
    conversation_id: '',
  };
  const files = lastUserFiles(last, warnings);
  if (files.length > 0) out.files = files;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

/** A message's text for the transcript; an assistant's tool calls are written out, since Dify has no tool messages. */
function turnText(message: ChatMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => `[called ${call.function.name}(${call.function.arguments ?? ''})]`);
  return [contentText(message.content), ...calls].filter((text) => text !== '').join('\n');
}

/** The last user message's images as Dify `files`: http(s) URLs only (a data URL would need Dify's upload API first). */
function lastUserFiles(message: ChatMessage, warnings: string[]): Array<Record<string, unknown>> {
  if (!Array.isArray(message.content)) return [];
  const files: Array<Record<string, unknown>> = [];
  for (const part of message.content) {
    if (part.type === 'text') continue;
    if (part.type === 'image_url' && /^https?:\/\//i.test(part.url)) files.push({ type: 'image', transfer_method: 'remote_url', url: part.url });
    else if (part.type === 'image_url') warnings.push('inline images (data URLs) are not supported by Dify without an upload and were dropped');
    else warnings.push(`content part "${part.originalType}" is not supported by Dify and was dropped`);
  }
  return files;
}

const count = z.number().nullish();
/** Dify's usage (`metadata.usage`): token counts beside prices, which the relay ignores (it prices by its own ratios). */
export const difyUsageSchema = z.object({ prompt_tokens: count, completion_tokens: count });

/** Dify's usage in our terms, or null when it reported none. */
export function usageFromDify(usage: z.infer<typeof difyUsageSchema> | null | undefined): Usage | null {
  if (!usage || (usage.prompt_tokens == null && usage.completion_tokens == null)) return null;
  return { prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0, cached_tokens: 0 };
}

const blockingAnswerSchema = z.object({
  message_id: z.string().nullish(),
  id: z.string().nullish(),
  answer: z.string(),
  metadata: z.object({ usage: difyUsageSchema.nullish() }).nullish(),
});

/** A blocking answer (`{answer, metadata: {usage}}`) as a chat completion, its id Dify's message id. */
export function difyChatResponse(json: unknown, context: ProviderContext): ChatResult {
  const answer = parseUpstream(blockingAnswerSchema, json, 'dify');
  const usage = usageFromDify(answer.metadata?.usage);
  const body = chatCompletion({
    id: answer.message_id ?? answer.id ?? 'chatcmpl-dify',
    model: context.upstreamModel,
    content: answer.answer,
    reasoning: '',
    toolCalls: [],
    finishReason: 'stop',
    usage,
  });
  return { body, usage };
}
