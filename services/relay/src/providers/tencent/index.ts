import type { ChatProviderDefinition } from '../types.js';
import { HUNYUAN_SERVICE, tencentCredentials, tencentHeaders, tencentRegion, tencentUrl } from './api.js';
import { tencentChatBody, tencentChatResponse } from './chat.js';
import { TencentStreamConverter } from './chat-stream.js';
import { SseOrBodyFramer } from '../shared/sse-or-body-framer.js';
import { tencentError } from './error.js';
import { signTc3 } from './sign.js';

/**
 * Tencent Hunyuan (channel type 23): OpenAI chat to and from TencentCloud API 3.0's
 * `ChatCompletions` (version 2023-09-01) at `/` of its host, every call signed TC3-HMAC-SHA256
 * with the key's SecretKey (`authorize`): content-type, host and the action header signed, the
 * timestamp now, the channel's region when it has one.
 */
export const tencentProvider: ChatProviderDefinition = {
  id: 'tencent',
  operations: ['chat'],
  // Hunyuan streams always end with their usage (the event with the FinishReason), emitted as the usage-only chunk.
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const converted = tencentChatBody(body, context);
      return {
        method: 'POST',
        url: tencentUrl(context),
        headers: tencentHeaders(),
        body: JSON.stringify(converted.body),
        ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
      };
    },
    response: tencentChatResponse,
    stream: (context) => new TencentStreamConverter(context),
  },
  authorize: async (request, context) => {
    const { secretId, secretKey } = tencentCredentials(context.key);
    const region = tencentRegion(context);
    const regional = region ? { ...request, headers: { ...request.headers, 'X-TC-Region': region } } : request;
    return signTc3(regional, { service: HUNYUAN_SERVICE, secretId, secretKey, timestamp: Math.floor(Date.now() / 1000), signedHeaders: ['x-tc-action'] });
  },
  framing: () => new SseOrBodyFramer(),
  error: tencentError,
};
