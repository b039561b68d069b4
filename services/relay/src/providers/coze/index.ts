import type { ProviderDefinition } from '../types.js';
import { SseOrBodyFramer } from '../shared/sse-or-body-framer.js';
import { cozeChatUrl, cozeHeaders } from './api.js';
import { cozeChatBody } from './chat.js';
import { CozeStreamConverter } from './chat-stream.js';
import { cozeError } from './error.js';

/**
 * Coze (channel type 49): OpenAI chat to and from a Coze bot's v3 chat API (`POST /v3/chat`), the
 * key a Coze access token. Every call streams (Coze's blocking mode needs polling): there is no
 * `chat.response`, a whole answer is the stream folded through the converter. Coze ends every
 * stream that finished with the chat's usage (`conversation.chat.completed`), emitted as the
 * usage-only chunk, which the relay hides from a client that did not ask. A refusal answered as
 * JSON in place of the stream is read by the framing (SseOrBodyFramer) as one event.
 */
export const cozeProvider: ProviderDefinition = {
  id: 'coze',
  operations: ['chat'],
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const converted = cozeChatBody(body, context);
      return {
        method: 'POST',
        url: cozeChatUrl(context),
        headers: cozeHeaders(context.key),
        body: JSON.stringify(converted.body),
        ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
      };
    },
    stream: (context) => new CozeStreamConverter(context),
  },
  framing: () => new SseOrBodyFramer(),
  error: cozeError,
};
