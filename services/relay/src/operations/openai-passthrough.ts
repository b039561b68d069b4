import { modelOf } from './model-field.js';
import { estimateCompletion, countTexts, textsTokenBound } from '../estimates.js';
import { requestBounds } from '../request-bounds.js';
import { openAiChatStream } from './chat-stream.js';
import type { Attempt, OperationDefinition } from './types.js';
import type { Usage } from '../providers/types.js';

type PassthroughName = 'completions' | 'embeddings' | 'moderations';

/**
 * An OpenAI-format operation other than chat: forwarded as the client sent it but for the model
 * (the provider's passthrough), its usage read from the answer's `usage`. A completions stream is
 * OpenAI's chunk stream, read like chat's.
 */
function passthroughOperation(name: PassthroughName, label: string, input: 'prompt' | 'input', streams: boolean): OperationDefinition {
  const path = `/v1/${name}` as const;
  return {
    name,
    label,
    capability: name,
    inspect: (body) => ({ model: modelOf(body), stream: streams && body.stream === true, bounds: requestBounds(name, body) }),
    estimatePrompt: (body, model) => countTexts(body[input], model),
    boundPrompt: (body) => textsTokenBound(body[input]),
    upstream: (attempt, body) => ({ request: passthrough(attempt).request(path, body, attempt.context), injectedUsage: false }),
    answer(attempt, upstream, requestBody) {
      const { body, usage } = passthroughAnswer(attempt, path, upstream.json(), requestBody);
      return { body, usage, estimatedCompletion: usage ? 0 : estimateCompletion(body, attempt.context.requestedModel) };
    },
    stream: openAiChatStream,
  };
}

export function passthrough(attempt: Attempt) {
  // Routing tried this channel because its provider lists the operation; a provider that lists
  // one has a passthrough (the registry's test holds every provider to that).
  const adapter = attempt.provider.passthrough;
  if (!adapter) throw new Error(`provider ${attempt.provider.id} lists an OpenAI-format operation but has no passthrough`);
  return adapter;
}

/** The client's body and the usage of a passthrough answer: converted when the provider's own shape is not OpenAI's. */
export function passthroughAnswer(attempt: Attempt, path: string, json: unknown, requestBody: Record<string, unknown>): { body: unknown; usage: Usage | null } {
  const adapter = passthrough(attempt);
  return adapter.answer ? adapter.answer(path, json, requestBody, attempt.context) : { body: json, usage: adapter.usage(json) };
}

export const completionsOperation = passthroughOperation('completions', 'completions', 'prompt', true);
export const embeddingsOperation = passthroughOperation('embeddings', 'embeddings', 'input', false);
export const moderationsOperation = passthroughOperation('moderations', 'moderations', 'input', false);
