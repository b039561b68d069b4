import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { msg } from '@aigw/contracts';
import { ForbiddenError, OperationalError, openSecret, recordAudit, requestTyped, requireAuth, TooManyRequestsError } from '@aigw/platform';
import type { ChannelsContext } from '../context.js';
import { getChannel } from '../channels.js';
import { idParams } from './schemas.js';
import { channelTarget } from '../audit.js';

/** Reveals per root per minute: a stolen session cannot walk every channel at once. */
const REVEALS_PER_MINUTE = 10;

/** The refusal without a fresh step-up; the console answers it by asking for one. */
export const stepUpRequired = msg('step_up.fresh_required');

/**
 * POST /api/channel/:id/key: root reads a channel's stored key (rule R4: the only way a channel
 * key leaves, root only, rate limited, logged and audited without the key). It also needs a step-up: the
 * caller's console session proved a second factor within the window (`POST /api/verify`).
 * Identity owns that record; it is asked here, on this rare route only, with the session hash
 * the gateway put in the caller's signed identity, so no other request pays for it.
 */
export const channelKeyRoutes: FastifyPluginAsyncZod<{ context: ChannelsContext }> = async (app, { context }) => {
  app.post('/api/channel/:id/key', { schema: { params: idParams }, config: { access: 'root' } }, async (request) => {
    const auth = requireAuth(request);
    if ((await context.kv.increment(`channel-key-reveal:${auth.userId}`, { ttlMs: 60_000 })) > REVEALS_PER_MINUTE) throw new TooManyRequestsError();
    if (!auth.session) throw new ForbiddenError(stepUpRequired);
    let verifiedAt: number | null;
    try {
      ({ verified_at: verifiedAt } = await requestTyped(
        context.bus,
        'identity.session.step-up',
        { user_id: auth.userId, session: auth.session },
        { timeoutMs: 3_000 },
      ));
    } catch (error) {
      throw new OperationalError('identity did not answer the step-up check', 'identity_unavailable', 503, error);
    }
    if (verifiedAt === null) throw new ForbiddenError(stepUpRequired);
    const channel = await getChannel(context, request.params.id);
    const key = openSecret(channel.key_encrypted, context.keySecret);
    context.logger.info({ userId: auth.userId, channelId: channel.id }, 'channel key revealed'); // never the key
    await recordAudit(request, context.bus, 'channels', { action: 'channel.key_revealed', target: channelTarget(channel) });
    return { success: true, message: '', data: { key } };
  });
};
