import type { ProviderDefinition } from '../types.js';
import { openAiUsageOf } from '../shared/usage.js';
import { jinaHeaders, jinaUrl } from './api.js';
import { jinaError } from './error.js';

/**
 * Jina (channel type 38): embeddings (`/v1/embeddings`, OpenAI's shape) and rerank (`/v1/rerank`,
 * the shape our /v1/rerank takes), forwarded as the client sent them but for the model. No chat.
 */
export const jinaProvider: ProviderDefinition = {
  id: 'jina',
  operations: ['embeddings', 'rerank'],
  streamUsage: false,
  passthrough: {
    request: (path, body, context) => {
      if (path !== '/v1/embeddings' && path !== '/v1/rerank') throw new Error(`the Jina provider serves no ${path}`);
      return {
        method: 'POST',
        url: jinaUrl(context, path),
        headers: jinaHeaders(context.key),
        body: JSON.stringify({ ...body, model: context.upstreamModel }),
      };
    },
    // Jina reports `usage.prompt_tokens` (and total_tokens) on both; rerank's is read by the operation.
    usage: openAiUsageOf,
  },
  error: jinaError,
};
