import type { ChatProviderDefinition, ProviderContext, UpstreamRequest } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { OpenAiStreamConverter, openAiChatBody, openAiChatResponse } from '../openai/chat.js';
import { dashScopeHeaders, dashScopeUrl, type DashScopePath } from './api.js';
import { dashScopeEmbedBody, dashScopeEmbeddingsAnswer } from './embed.js';
import { dashScopeError } from './error.js';
import { dashScopeImageRequest, dashScopeImageStep } from './image.js';
import { dashScopeRerankAnswer, dashScopeRerankBody } from './rerank.js';

const post = (context: ProviderContext, path: DashScopePath, body: Record<string, unknown>, warnings: string[] = []): UpstreamRequest => ({
  method: 'POST',
  url: dashScopeUrl(context, path),
  headers: dashScopeHeaders(context.key),
  body: JSON.stringify(body),
  ...(warnings.length > 0 ? { warnings } : {}),
});

/**
 * Alibaba Cloud DashScope / Model Studio (channel type 17): chat and embeddings through its
 * OpenAI-compatible mode (`/compatible-mode/v1/`, forwarded as the client sent them but for the
 * model; embeddings always asked as floats, base64 encoded here when the client wants it), rerank
 * through the native text-rerank service converted to and from Jina's shape, image generations
 * through the native text-to-image tasks, polled within the request until their images are there
 * (image.ts; `follow`). The compatible mode honours `stream_options.include_usage`, so the relay
 * asks streams for their usage. Not image edits or variations: DashScope's image editing is
 * another API with its own inputs.
 */
export const aliProvider: ChatProviderDefinition = {
  id: 'ali',
  operations: ['chat', 'embeddings', 'rerank', 'images'],
  streamUsage: true,
  chat: {
    request: (body, context) => post(context, '/compatible-mode/v1/chat/completions', openAiChatBody(body, context, true)),
    response: (json) => openAiChatResponse(json, 'ali'),
    stream: () => new OpenAiStreamConverter(),
  },
  passthrough: {
    request: (path, body, context) => {
      if (path === '/v1/embeddings') return post(context, '/compatible-mode/v1/embeddings', dashScopeEmbedBody(body, context));
      if (path === '/v1/rerank') {
        const converted = dashScopeRerankBody(body, context);
        return post(context, '/api/v1/services/rerank/text-rerank/text-rerank', converted.body, converted.warnings);
      }
      if (path === '/v1/images/generations') return dashScopeImageRequest(body, context);
      throw new Error(`the Ali provider serves no ${path}`);
    },
    usage: openAiUsageOf,
    answer: (path, json, requestBody, context) =>
      path === '/v1/rerank' ? dashScopeRerankAnswer(json, requestBody, context) : dashScopeEmbeddingsAnswer(json, requestBody),
    // Image generations answer a task, polled until it is done; every other answer is final.
    follow: (operation, json, context, sent) => (operation === 'images' ? dashScopeImageStep(json, context, sent) : { done: true }),
  },
  error: dashScopeError,
};
