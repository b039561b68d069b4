import { z } from 'zod';
import type { ProviderContext, ChatProviderDefinition, UpstreamRequest } from '../types.js';
import { parseUpstream } from '../shared/upstream-response.js';
import { cohereHeaders, cohereUrl, type CoherePath } from './api.js';
import { cohereChatBody, cohereChatResponse } from './chat.js';
import { CohereStreamConverter } from './chat-stream.js';
import { cohereEmbedBody, cohereEmbeddingsAnswer, cohereEmbedUsage } from './embed.js';
import { cohereError } from './error.js';
import { cohereRerankAnswer, cohereRerankBody } from './rerank.js';

const modelListSchema = z.object({ models: z.array(z.object({ name: z.string() })) });

const post = (context: ProviderContext, path: CoherePath, converted: { body: Record<string, unknown>; warnings: string[] }): UpstreamRequest => ({
  method: 'POST',
  url: cohereUrl(context, path),
  headers: cohereHeaders(context.key),
  body: JSON.stringify(converted.body),
  ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
});

/**
 * Cohere (channel type 34): OpenAI chat converted to and from the v2 chat API, embeddings to and
 * from v2 embed (OpenAI's shape, float or base64 as the client asked), and rerank (`/v1/rerank`,
 * Jina's shape) to and from v2 rerank, the documents put back (Cohere reports no rerank tokens:
 * the relay counts them, or a per-call ModelPrice fits its search units).
 */
export const cohereProvider: ChatProviderDefinition = {
  id: 'cohere',
  operations: ['chat', 'embeddings', 'rerank'],
  // Cohere always reports usage in its stream (message-end); the converter emits it as the usage-only chunk.
  streamUsage: true,
  chat: {
    request: (body, context) => post(context, '/v2/chat', cohereChatBody(body, context)),
    response: cohereChatResponse,
    stream: (context) => new CohereStreamConverter(context),
  },
  passthrough: {
    request: (path, body, context) => {
      if (path === '/v1/rerank') return post(context, '/v2/rerank', cohereRerankBody(body, context));
      if (path === '/v1/embeddings') return post(context, '/v2/embed', cohereEmbedBody(body, context));
      throw new Error(`the Cohere provider serves no ${path}`);
    },
    usage: cohereEmbedUsage,
    answer: (path, json, requestBody, context) =>
      path === '/v1/rerank' ? { body: cohereRerankAnswer(json, requestBody, context), usage: null } : cohereEmbeddingsAnswer(json, requestBody, context),
  },
  models: {
    // The list is paged (20 by default); 1,000 is the largest page.
    request: (context) => ({ method: 'GET', url: `${cohereUrl(context, '/v1/models')}?page_size=1000`, headers: cohereHeaders(context.key) }),
    parse: (json) => parseUpstream(modelListSchema, json, 'cohere').models.map((model) => model.name),
  },
  error: cohereError,
};
