import type { ProviderDefinition } from '../types.js';
import { sparkCredentials, sparkUrl, sparkVersion } from './api.js';
import { sparkMessage } from './chat.js';
import { SparkStreamConverter } from './chat-stream.js';
import { sparkError } from './error.js';
import { signSparkUrl } from './sign.js';

/**
 * iFlytek Spark (channel type 18): OpenAI chat over Spark's WebSocket (`websocket`: the relay
 * opens the socket, sends the one message and reads every answer message as an event until Spark
 * closes it, upstream-socket.ts). Spark only streams, so there is no `response`: a whole answer
 * is the stream folded (shared/stream-fold.ts). The version (the channel's `other`, else the
 * model's) picks the path and the domain; `authorize` signs the URL with the key's APISecret
 * just before the call, since Spark takes a date at most five minutes old.
 */
export const xunfeiProvider: ProviderDefinition = {
  id: 'xunfei',
  operations: ['chat'],
  // Spark ends every answer with its usage (the last message), emitted as the usage-only chunk:
  // the relay shows it only to clients that asked for it, as for the other native protocols.
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const version = sparkVersion(context);
      const { message, warnings } = sparkMessage(body, context, version, sparkCredentials(context.key));
      return {
        method: 'GET',
        url: sparkUrl(context, version),
        headers: {},
        body: JSON.stringify(message),
        websocket: true,
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
    stream: (context) => new SparkStreamConverter(context),
  },
  authorize: async (request, { key }) => ({ ...request, url: signSparkUrl(request.url, sparkCredentials(key), new Date()) }),
  error: sparkError,
};
