import type { FastifyPluginAsync } from 'fastify';
import type { RelayContext } from '../context.js';
import { authenticateToken, type Caller } from '../caller.js';
import { RelayError } from '../errors.js';

/** A fixed creation time: the list is ours, not the upstreams'. */
const CREATED = 1_626_777_600;

/** `GET /v1/models`: the models the token may use (its group's channels, within its model limits). */
export const modelRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  const models = (caller: Caller) =>
    context.channels.index.models(caller.group).filter((model) => !caller.modelLimits || caller.modelLimits.has(model));
  const entry = (id: string) => ({ id, object: 'model', created: CREATED, owned_by: 'aigw' });

  app.get('/v1/models', { config: { access: 'public' } }, async (request) => {
    const caller = await authenticateToken(request, context.tokens);
    return { object: 'list', data: models(caller).map(entry) };
  });

  app.get<{ Params: { model: string } }>('/v1/models/:model', { config: { access: 'public' } }, async (request) => {
    const caller = await authenticateToken(request, context.tokens);
    if (!models(caller).includes(request.params.model)) throw new RelayError(404, `the model ${request.params.model} does not exist`, 'model_not_found', 'invalid_request_error');
    return entry(request.params.model);
  });
};
