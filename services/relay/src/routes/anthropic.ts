import type { FastifyPluginAsync } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { anthropicErrorHandler, RelayError } from '../errors.js';
import { anthropicToOpenAi } from '../formats/anthropic-input.js';
import { relay } from '../relay-call.js';
import { anthropicMessagesOperation } from '../operations/index.js';
import { MAX_OUTPUT_TOKENS } from '../request-bounds.js';
import { jsonBody } from './openai.js';

/**
 * The Anthropic Messages API (`POST /v1/messages`, sk- key as `x-api-key` or Bearer) for every
 * channel type: the request is converted to OpenAI's chat format, relayed through the ordinary
 * pipeline (pricing, holds, retries, usage records), and the answer converted back.
 *
 * Later optimisation, not built: pass Anthropic channels the native body unchanged (keeping
 * cache_control, thinking and other fields the OpenAI round trip drops).
 *
 * Registered as its own plugin so its error handler (Anthropic's error shape) covers only it.
 */
export const anthropicRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  app.setErrorHandler(anthropicErrorHandler);
  app.post(
    '/v1/messages',
    { config: { access: 'public' }, onRequest: requireApiKey(context.tokens), bodyLimit: context.limits.requestBodyBytes },
    async (request, reply) => {
      const body = validMessagesRequest(jsonBody(request.body));
      await relay(context, request, reply, callerOf(request), anthropicMessagesOperation, anthropicToOpenAi(body));
      return reply;
    },
  );
};

function validMessagesRequest(body: Record<string, unknown>): Record<string, unknown> {
  const invalid = (message: string) => new RelayError(400, message, 'invalid_request', 'invalid_request_error');
  if (typeof body.model !== 'string' || body.model.trim() === '') throw invalid('model: a string is required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages: a non-empty array is required');
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_OUTPUT_TOKENS) {
    throw invalid(`max_tokens: an integer from 1 to ${MAX_OUTPUT_TOKENS} is required`);
  }
  return body;
}
