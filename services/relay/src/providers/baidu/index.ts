import type { ChatProviderDefinition, ProviderContext, UpstreamRequest } from '../types.js';
import { BAIDU_HEADERS, baiduTokenExchange, baiduUrl, withAccessToken } from './api.js';
import { baiduChatBody, baiduChatResponse } from './chat.js';
import { BaiduStreamConverter } from './chat-stream.js';
import { SseOrBodyFramer } from '../shared/sse-or-body-framer.js';
import { baiduEmbedBody, baiduEmbeddingsAnswer, baiduEmbedUsage } from './embed.js';
import { baiduError } from './error.js';

const post = (context: ProviderContext, kind: 'chat' | 'embeddings', converted: { body: Record<string, unknown>; warnings: string[] }): UpstreamRequest => ({
  method: 'POST',
  url: baiduUrl(context, kind, context.upstreamModel),
  headers: { ...BAIDU_HEADERS },
  body: JSON.stringify(converted.body),
  ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
});

/**
 * Baidu ERNIE through wenxinworkshop v1 (channel type 15; Qianfan v2 is OpenAI-compatible, type
 * 46): OpenAI chat to and from `chat/{endpoint}` (the endpoint from the model name), embeddings to
 * and from `embeddings/{endpoint}` in OpenAI's shape. The key pair is exchanged for an access
 * token (`authorize`, through the relay's cached exchange), which every call carries in its query.
 */
export const baiduProvider: ChatProviderDefinition = {
  id: 'baidu',
  operations: ['chat', 'embeddings'],
  // ERNIE streams always end with the answer's usage (the `is_end` event), emitted as the usage-only chunk.
  streamUsage: true,
  chat: {
    request: (body, context) => post(context, 'chat', baiduChatBody(body, context)),
    response: baiduChatResponse,
    stream: (context) => new BaiduStreamConverter(context),
  },
  passthrough: {
    request: (path, body, context) => {
      if (path === '/v1/embeddings') return post(context, 'embeddings', baiduEmbedBody(body, context));
      throw new Error(`the Baidu provider serves no ${path}`);
    },
    usage: baiduEmbedUsage,
    answer: (_path, json, requestBody, context) => baiduEmbeddingsAnswer(json, requestBody, context),
  },
  authorize: async (request, context, tools) => ({ ...request, url: withAccessToken(request.url, await tools.accessToken(baiduTokenExchange(context))) }),
  framing: () => new SseOrBodyFramer(),
  error: baiduError,
};
