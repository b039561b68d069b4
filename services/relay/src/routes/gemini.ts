import type { FastifyPluginAsync } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, checkModelAllowed, requireApiKey, type Caller } from '../caller.js';
import { geminiErrorHandler, RelayError } from '../errors.js';
import { relay } from '../relay-call.js';
import { withIdempotency } from '../idempotency.js';
import {
  geminiBatchEmbedOperation,
  geminiEmbedOperation,
  geminiGenerateOperation,
  geminiStreamGenerateOperation,
  type GeminiCall,
} from '../operations/gemini.js';
import type { OperationDefinition } from '../operations/types.js';
import { jsonBody } from './openai.js';

const operations: Record<string, OperationDefinition> = {
  generateContent: geminiGenerateOperation,
  streamGenerateContent: geminiStreamGenerateOperation,
  embedContent: geminiEmbedOperation,
  batchEmbedContents: geminiBatchEmbedOperation,
};

/**
 * Gemini's own API for Google's clients (`@google/genai`, `google-generativeai`): generateContent
 * and its stream, embedContent, batchEmbedContents, countTokens and the model list, under
 * `/v1beta/models` (and `/v1/models/{model}:{method}`, which the same clients use for the v1 API).
 * Registered as its own plugin so its error handler (Google's error shape) covers only it.
 */
export const geminiRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  app.setErrorHandler(geminiErrorHandler);
  const keyed = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens) };
  const models = (caller: Caller) => context.channels.index.models(caller.group).filter((model) => !caller.modelLimits || caller.modelLimits.has(model));
  const entry = (id: string) => ({
    name: `models/${id}`,
    version: '001',
    displayName: id,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents'],
  });

  app.get('/v1beta/models', keyed, async (request) => ({ models: models(callerOf(request)).map(entry) }));
  app.get<{ Params: { model: string } }>('/v1beta/models/:model', keyed, async (request) => {
    if (!models(callerOf(request)).includes(request.params.model)) {
      throw new RelayError(404, `models/${request.params.model} is not found`, 'model_not_found', 'invalid_request_error');
    }
    return entry(request.params.model);
  });

  for (const prefix of ['/v1beta/models/*', '/v1/models/*']) {
    app.post<{ Params: { '*': string }; Querystring: { alt?: string } }>(
      prefix,
      { ...keyed, bodyLimit: context.limits.requestBodyBytes },
      async (request, reply) => {
        const path = request.params['*'];
        const colon = path.lastIndexOf(':');
        const model = decodeURIComponent(colon < 0 ? path : path.slice(0, colon)).replace(/^models\//, '');
        const method = colon < 0 ? '' : path.slice(colon + 1);
        const body = jsonBody(request.body);
        if (method === 'countTokens') return countTokens(callerOf(request), model, body);
        const operation = operations[method];
        if (!operation) throw new RelayError(404, `method ${method || '(none)'} is not supported for models/${model}`, 'not_found', 'invalid_request_error');
        const call: GeminiCall = { model, request: body, sse: request.query.alt === 'sse' };
        // A retry with the same Idempotency-Key gets the first answer, charged once (idempotency.ts).
        await withIdempotency(context, request, reply, () => relay(context, request, reply, callerOf(request), operation, call));
        return reply;
      },
    );
  }
};

/**
 * `:countTokens`, answered here from the relay's own count (the one its holds use): free, as it
 * is at Google, and without spending an upstream call.
 */
function countTokens(caller: Caller, model: string, body: Record<string, unknown>) {
  checkModelAllowed(caller, model);
  const request = (body.generateContentRequest as Record<string, unknown> | undefined) ?? body;
  const call: GeminiCall = { model, request: { ...request, contents: request.contents ?? [] }, sse: false };
  return { totalTokens: geminiGenerateOperation.estimatePrompt(call, model) };
}
