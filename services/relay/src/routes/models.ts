import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey, type Caller } from '../caller.js';
import { RelayError } from '../errors.js';

/** A fixed creation time: the list is ours, not the upstreams'. */
const CREATED = 1_626_777_600;

/** Which client asks: Anthropic's send `anthropic-version` (with `x-api-key` or a Bearer key), Google's `x-goog-api-key` or `?key=`. */
function listShape(request: FastifyRequest): 'openai' | 'anthropic' | 'gemini' {
  const { headers } = request;
  if (typeof headers['anthropic-version'] === 'string') return 'anthropic';
  if (typeof headers['x-goog-api-key'] === 'string' || typeof (request.query as { key?: unknown } | undefined)?.key === 'string') return 'gemini';
  return 'openai';
}

/**
 * `GET /v1/models`: the models the token may use (its group's channels, within its model limits),
 * in the shape of the client that asks (OpenAI's by default, Anthropic's or Gemini's when their
 * headers come, as the established product answers).
 */
export const modelRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  const models = (caller: Caller) => context.channels.index.models(caller.group).filter((model) => !caller.modelLimits || caller.modelLimits.has(model));
  const entry = (id: string) => ({ id, object: 'model', created: CREATED, owned_by: 'aigw' });
  const anthropicEntry = (id: string) => ({ type: 'model', id, display_name: id, created_at: new Date(CREATED * 1000).toISOString() });
  const geminiEntry = (id: string) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] });

  const keyed = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens) };

  app.get('/v1/models', keyed, async (request) => {
    const list = models(callerOf(request));
    switch (listShape(request)) {
      case 'anthropic':
        return { data: list.map(anthropicEntry), has_more: false, first_id: list[0] ?? null, last_id: list.at(-1) ?? null };
      case 'gemini':
        return { models: list.map(geminiEntry) };
      case 'openai':
        return { object: 'list', data: list.map(entry) };
    }
  });

  app.get<{ Params: { model: string } }>('/v1/models/:model', keyed, async (request) => {
    if (!models(callerOf(request)).includes(request.params.model))
      throw new RelayError(404, `the model ${request.params.model} does not exist`, 'model_not_found', 'invalid_request_error');
    const shape = listShape(request);
    return shape === 'anthropic' ? anthropicEntry(request.params.model) : shape === 'gemini' ? geminiEntry(request.params.model) : entry(request.params.model);
  });
};
