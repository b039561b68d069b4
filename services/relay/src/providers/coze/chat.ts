import { randomUUID } from 'node:crypto';
import type { ProviderContext } from '../types.js';
import { ignoredRequestKeys, InvalidChatRequestError, parseChatRequest } from '../shared/chat-request.js';
import { textOnlyTurns } from '../shared/turns.js';
import { cozeBotId } from './api.js';

/** The keys a Coze call takes from the client's body; every other one is dropped with a warning (the bot sets its own model parameters). */
const mappedKeys = new Set([...ignoredRequestKeys, 'user']);

interface CozeMessage {
  role: 'user' | 'assistant';
  type: 'question' | 'answer';
  content: string;
  content_type: 'text';
}

/**
 * OpenAI chat request -> Coze's `POST /v3/chat` body: the bot (`bot_id`, api.ts), the end user
 * (`user_id`: the client's `user`, else an id of this request alone, since the relay keeps no
 * conversation state and a new conversation opens per call), and the conversation as
 * `additional_messages` (user questions and assistant answers, text only; Coze has no system role,
 * so the system text opens the first user message, the bot's own persona still applies). Always
 * `stream: true`: Coze's blocking mode answers only a chat id to poll, so a whole answer is the
 * stream folded (shared/stream-fold.ts). `param_override` is merged last (`custom_variables`...).
 */
export function cozeChatBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const request = parseChatRequest(body);
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Coze and was dropped (the bot sets its own)`);

  const { system, turns } = textOnlyTurns(request.messages, warnings, 'Coze');
  const lastUser = turns.findLastIndex((turn) => turn.role === 'user');
  if (lastUser === -1) throw new InvalidChatRequestError('a Coze bot answers a user message: the request has none with text');
  if (lastUser < turns.length - 1) warnings.push('assistant messages after the last user message are not supported by Coze and were dropped');

  const messages = turns.slice(0, lastUser + 1).map((turn): CozeMessage => ({
    role: turn.role,
    type: turn.role === 'user' ? 'question' : 'answer',
    content: turn.items.join('\n\n'),
    content_type: 'text',
  }));
  const firstUser = messages.find((message) => message.role === 'user')!;
  if (system !== '') firstUser.content = `${system}\n\n${firstUser.content}`;

  const out: Record<string, unknown> = {
    bot_id: cozeBotId(context),
    user_id: request.user || `aigw-${randomUUID()}`,
    stream: true,
    additional_messages: messages,
  };
  return { body: { ...out, ...context.channel.param_override }, warnings };
}
