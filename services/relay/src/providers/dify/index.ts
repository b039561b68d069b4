import type { ChatProviderDefinition } from '../types.js';
import { difyChatUrl, difyHeaders } from './api.js';
import { difyChatBody, difyChatResponse } from './chat.js';
import { DifyStreamConverter } from './chat-stream.js';
import { difyError } from './error.js';

/**
 * Dify (channel type 37): OpenAI chat to and from a Dify app's `POST /v1/chat-messages`, the key
 * the app's API key. Every call is a new conversation (the earlier turns folded into the query), so
 * the relay keeps no state. Dify always reports usage at the end of a stream (`message_end`); the
 * converter emits it as the usage-only chunk, which the relay hides from a client that did not ask.
 */
export const difyProvider: ChatProviderDefinition = {
  id: 'dify',
  operations: ['chat'],
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const converted = difyChatBody(body, context);
      return {
        method: 'POST',
        url: difyChatUrl(context),
        headers: difyHeaders(context.key),
        body: JSON.stringify(converted.body),
        ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
      };
    },
    response: difyChatResponse,
    stream: (context) => new DifyStreamConverter(context),
  },
  error: difyError,
};
