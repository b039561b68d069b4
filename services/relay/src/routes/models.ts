import type { FastifyPluginAsync } from 'fastify';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey, type Caller } from '../caller.js';
import { RelayError } from '../errors.js';

/** A fixed creation time: the list is ours, not the upstreams'. */
const CREATED = 1_626_777_600;

/** `GET /v1/models`: the models the token may use (its group's channels, within its model limits). */
export const modelRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  const models = (caller: Caller) => context.channels.index.models(caller.group).filter((model) => !caller.modelLimits || caller.modelLimits.has(model));
  const entry = (id: string) => ({ id, object: 'model', created: CREATED, owned_by: 'aigw' });

  const keyed = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens) };

  app.get('/v1/models', keyed, async (request) => {
    return { object: 'list', data: models(callerOf(request)).map(entry) };
  });

  app.get<{ Params: { model: string } }>('/v1/models/:model', keyed, async (request) => {
    if (!models(callerOf(request)).includes(request.params.model))
      throw new RelayError(404, `the model ${request.params.model} does not exist`, 'model_not_found', 'invalid_request_error');
    return entry(request.params.model);
  });
};
