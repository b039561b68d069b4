import type { FastifyPluginAsync } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { anthropicErrorHandler } from '../errors.js';
import { relay } from '../relay-call.js';
import { idempotent } from '../idempotency.js';
import { messagesOperation } from '../operations/index.js';
import { jsonBody } from './openai.js';

/**
 * The Anthropic Messages API (`POST /v1/messages`, sk- key as `x-api-key` or Bearer) for every
 * chat channel: native on Anthropic's, converted on the others (operations/messages.ts).
 *
 * Registered as its own plugin so its error handler (Anthropic's error shape) covers only it.
 */
export const anthropicRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  app.setErrorHandler(anthropicErrorHandler);
  app.post(
    '/v1/messages',
    { config: { access: 'public' }, onRequest: requireApiKey(context.tokens), bodyLimit: context.limits.requestBodyBytes },
    idempotent(context, async (request, reply) => {
      await relay(context, request, reply, callerOf(request), messagesOperation, jsonBody(request.body));
      return reply;
    }),
  );
};
