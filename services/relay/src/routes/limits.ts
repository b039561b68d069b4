import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { limitUseQuerySchema, msg, Role, type LimitUse } from '@aigw/contracts';
import { envelopeErrorHandler, ForbiddenError, NotFoundError, OperationalError, requestTyped, requireAuth, UserError } from '@aigw/platform';
import type { RelayContext } from '../context.js';

/**
 * GET /api/limits/use (docs/architecture.md section 5.9): what a scope's usage limits count now,
 * for the console to show beside each limit where it is set. The relay owns the counters, so it
 * answers. An API key's figures to its owner and admins, a user's to the user and admins, a
 * channel's and a model's to admins.
 */
export const limitRoutes: FastifyPluginAsyncZod<{ context: RelayContext }> = async (app, { context }) => {
  // Console routes answer the envelope, not the relay's OpenAI error shape (this plugin is encapsulated).
  app.setErrorHandler(envelopeErrorHandler);

  app.get('/api/limits/use', { schema: { querystring: limitUseQuerySchema }, config: { access: 'user' } }, async (request) => {
    const auth = requireAuth(request);
    const admin = auth.role >= Role.Admin;
    const { scope, id, group } = request.query;
    const numeric = () => {
      const value = Number(id);
      if (!Number.isSafeInteger(value) || value <= 0) throw new UserError(`id: ${msg('usage.id_positive')}`);
      return value;
    };
    let prefix: string;
    if (scope === 'key') {
      const tokenId = numeric();
      if (!admin && !(await ownsToken(context, tokenId, auth.userId))) throw new NotFoundError(msg('tokens.not_found'));
      prefix = `limit:key:${tokenId}`;
    } else if (scope === 'user') {
      const userId = numeric();
      if (!admin && userId !== auth.userId) throw new ForbiddenError();
      prefix = `limit:user:${userId}`;
    } else {
      if (!admin) throw new ForbiddenError();
      prefix = scope === 'channel' ? `limit:channel:${numeric()}` : `limit:model:${id}${group ? `:group:${group}` : ''}`;
    }
    const data: LimitUse[] = await context.limitGate.use(prefix);
    return { success: true, message: '', data };
  });
};

/** Whether the key is the caller's (billing owns keys; its figures answer null for another user's). */
async function ownsToken(context: RelayContext, tokenId: number, userId: number): Promise<boolean> {
  try {
    const { token } = await requestTyped(context.bus, 'billing.token.figures', { token_id: tokenId, user_id: userId }, { timeoutMs: 3_000 });
    return token !== null;
  } catch (error) {
    throw new OperationalError('billing did not answer', 'billing_unavailable', 503, error);
  }
}
