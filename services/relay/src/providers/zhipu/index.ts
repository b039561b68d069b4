import type { ChatProviderDefinition, ProviderContext, UpstreamRequest } from '../types.js';
import { zhipuHeaders, zhipuToken, zhipuUrl } from './api.js';
import { zhipuChatBody, zhipuChatResponse } from './chat.js';
import { ZhipuEventFramer, ZhipuStreamConverter } from './chat-stream.js';
import { zhipuEmbedBody, zhipuEmbeddingsAnswer, zhipuEmbedUsage } from './embed.js';
import { zhipuError } from './error.js';

const post = (context: ProviderContext, stream: boolean, converted: { body: Record<string, unknown>; warnings: string[] }): UpstreamRequest => ({
  method: 'POST',
  url: zhipuUrl(context, context.upstreamModel, stream),
  headers: zhipuHeaders(stream),
  body: JSON.stringify(converted.body),
  ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
});

/**
 * Zhipu's v3 API (channel type 16; v4 is OpenAI-compatible, type 26): OpenAI chat to and from
 * `model-api/{model}/invoke` (`sse-invoke` for streams, whose events are not JSON: `framing`),
 * embeddings through the embedding model's `invoke` (one text per call) in OpenAI's shape. Every
 * call carries a JWT signed with the key's secret (`authorize`).
 */
export const zhipuProvider: ChatProviderDefinition = {
  id: 'zhipu',
  operations: ['chat', 'embeddings'],
  // v3 streams always end with their usage (`meta` of the finish event), emitted as the usage-only chunk.
  streamUsage: true,
  chat: {
    request: (body, context) => {
      const converted = zhipuChatBody(body, context);
      return post(context, converted.stream, converted);
    },
    response: zhipuChatResponse,
    stream: (context) => new ZhipuStreamConverter(context),
  },
  passthrough: {
    request: (path, body, context) => {
      if (path === '/v1/embeddings') return post(context, false, zhipuEmbedBody(body, context));
      throw new Error(`the Zhipu v3 provider serves no ${path}`);
    },
    usage: zhipuEmbedUsage,
    answer: (_path, json, requestBody, context) => zhipuEmbeddingsAnswer(json, requestBody, context),
  },
  authorize: async (request, { key }) => ({ ...request, headers: { ...request.headers, Authorization: zhipuToken(key, Date.now()) } }),
  framing: () => new ZhipuEventFramer(),
  error: zhipuError,
};
