import type { FastifyPluginAsync } from 'fastify';
import { requireAuth } from '@aigw/platform';
import type { RelayContext } from '../context.js';
import type { Caller } from '../caller.js';
import { RelayError } from '../errors.js';
import { relay } from '../relay-call.js';
import { chatCompletionsOperation } from '../operations/index.js';
import { jsonBody } from './openai.js';

/**
 * The console's playground: the signed-in user (session, via the gateway), no token. The body
 * may name a group the user may use; the request bills the user only.
 */
export const playgroundRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  app.post('/pg/chat/completions', { config: { access: 'user' }, bodyLimit: context.limits.requestBodyBytes }, async (request, reply) => {
    const auth = requireAuth(request);
    const { group: requested, ...body } = jsonBody(request.body);
    const group = typeof requested === 'string' && requested.length > 0 ? requested : auth.group;
    if (group !== auth.group && !Object.hasOwn(context.options.get('UserUsableGroups'), group)) {
      throw new RelayError(403, `group ${group} is not available to you`, 'group_not_available', 'permission_error');
    }
    const caller: Caller = {
      userId: auth.userId,
      tokenId: 0,
      tokenName: `playground-${group}`,
      unlimitedToken: true,
      group,
      modelLimits: null,
      tokenLimits: {},
      userLimits: {},
      pinnedChannelId: null,
    };
    await relay(context, request, reply, caller, chatCompletionsOperation, body);
    return reply;
  });
};
