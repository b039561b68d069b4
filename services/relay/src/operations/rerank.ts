import { countText, textTokenBound } from '../tokenizer/index.js';
import { requestBounds } from '../request-bounds.js';
import { modelOf } from './model-field.js';
import { passthrough, passthroughAnswer } from './openai-passthrough.js';
import type { OperationDefinition } from './types.js';
import type { Usage } from '../providers/types.js';

/**
 * Rerank (`POST /v1/rerank`, Jina's shape, which Cohere-style clients also send): a query and the
 * documents to order. Forwarded to an upstream that serves it as the client sent it but for the
 * model; priced per call when the model has a ModelPrice, else by its tokens (the upstream's
 * `usage`, or counted here: the query once per document plus each document, as Jina counts).
 */
export const rerankOperation: OperationDefinition = {
  name: 'rerank',
  label: 'rerank',
  capability: 'rerank',
  inspect: (body) => ({ model: modelOf(body), stream: false, bounds: requestBounds('rerank', body) }),
  estimatePrompt(body, model) {
    const query = countText(body.query as string, model);
    return (body.documents as Array<string | { text: string }>).reduce(
      (sum, document) => sum + query + countText(typeof document === 'string' ? document : document.text, model),
      0,
    );
  },
  boundPrompt(body) {
    const query = textTokenBound(body.query as string);
    return (body.documents as Array<string | { text: string }>).reduce(
      (sum, document) => sum + query + textTokenBound(typeof document === 'string' ? document : document.text),
      0,
    );
  },
  upstream: (attempt, body) => ({ request: passthrough(attempt).request('/v1/rerank', body, attempt.context), injectedUsage: false }),
  answer(attempt, upstream, requestBody) {
    const json = upstream.json();
    // A provider whose answer is not Jina's shape converts it (and its usage, if any).
    if (attempt.provider.passthrough?.answer) {
      const { body, usage } = passthroughAnswer(attempt, '/v1/rerank', json, requestBody);
      return { body, usage, estimatedCompletion: 0 };
    }
    return { body: json, usage: rerankUsage(json), estimatedCompletion: 0 };
  },
};

/** Jina reports `usage.total_tokens` (and sometimes `prompt_tokens`); a rerank has no completion. */
function rerankUsage(json: unknown): Usage | null {
  const usage = (json as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } } | null)?.usage;
  const tokens = typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : usage?.total_tokens;
  return typeof tokens === 'number' ? { prompt_tokens: tokens, completion_tokens: 0, cached_tokens: 0 } : null;
}
