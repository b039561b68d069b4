import type { FastifyPluginAsync } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { RelayError } from '../errors.js';
import { relay } from '../relay-call.js';
import { idempotent } from '../idempotency.js';
import {
  chatCompletionsOperation,
  completionsOperation,
  embeddingsOperation,
  moderationsOperation,
  rerankOperation,
  imageGenerationsOperation,
  speechOperation,
  responsesOperation,
  type OperationDefinition,
} from '../operations/index.js';

const paths: Array<[string, OperationDefinition]> = [
  ['/v1/chat/completions', chatCompletionsOperation],
  ['/v1/completions', completionsOperation],
  ['/v1/embeddings', embeddingsOperation],
  ['/v1/moderations', moderationsOperation],
  ['/v1/rerank', rerankOperation],
  ['/v1/images/generations', imageGenerationsOperation],
  ['/v1/audio/speech', speechOperation],
  ['/v1/responses', responsesOperation],
];

/** The OpenAI-compatible relay routes (sk- token auth is the relay's own: the data plane does not depend on the gateway). */
export const openAiRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  for (const [path, operation] of paths) {
    app.post(
      path,
      { config: { access: 'public' }, onRequest: requireApiKey(context.tokens), bodyLimit: context.limits.requestBodyBytes },
      // A retry with the same Idempotency-Key gets the first answer, charged once (idempotency.ts).
      idempotent(context, async (request, reply) => {
        await relay(context, request, reply, callerOf(request), operation, jsonBody(request.body));
        return reply;
      }),
    );
  }
};

export function jsonBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RelayError(400, 'the request body must be a JSON object', 'invalid_request', 'invalid_request_error');
  }
  return body as Record<string, unknown>;
}
