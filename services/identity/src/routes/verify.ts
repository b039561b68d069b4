import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { msg, verifyBodySchema, type VerifyResult } from '@aigw/contracts';
import { requireAuth, UserError, type AuthContext } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { userCeremony } from '../ceremonies.js';

/** The challenge of a passkey step-up, between /api/user/passkey/verify/begin and its finish. */
export const passkeyVerifyCeremony = (context: IdentityContext) => userCeremony<{ challenge: string }>(context.kv, 'passkey_verify');

/** The session a step-up is recorded on; access tokens have none (the established product's rule too). */
export function stepUpSession(auth: AuthContext): string {
  if (!auth.session) throw new UserError(msg('step_up.session_required'));
  return auth.session;
}

/** Refused unless the user has a second factor to verify with: the console sends them to set one up. */
export async function assertCanStepUp(context: IdentityContext, userId: number): Promise<void> {
  if (!(await context.secondFactors.hasAny(userId))) {
    throw new UserError(msg('step_up.factor_required'));
  }
}

/** Opens the session's window; the answer says until when (seconds). */
export async function openStepUp(context: IdentityContext, auth: AuthContext, method: string): Promise<VerifyResult> {
  const expiresAt = await context.stepUp.record(auth.userId, stepUpSession(auth));
  context.logger.info({ userId: auth.userId, method }, 'step-up verified');
  return { verified: true, expires_at: Math.floor(expiresAt / 1000) };
}

/**
 * POST /api/verify: a second factor proved again opens a short window (STEP_UP_TTL_MS) in which
 * this session may do sensitive things (root's channel key reveal). `2fa` takes an authenticator
 * or backup code; `passkey` takes an assertion of the challenge /api/user/passkey/verify/begin
 * issued to this session. A method name alone proves nothing and is refused.
 */
export const verifyRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  app.post('/api/verify', { schema: { body: verifyBodySchema }, config: { access: 'user' } }, async (request) => {
    const auth = requireAuth(request);
    stepUpSession(auth);
    await assertCanStepUp(context, auth.userId);
    const body = request.body;
    if (body.method === '2fa') {
      await context.secondFactors.verifyCode(auth.userId, body.code, { backup: true });
    } else {
      const rp = context.passkeys.relyingParty(request);
      const ceremony = await passkeyVerifyCeremony(context).take(auth.userId, auth.session);
      if (!ceremony) throw new UserError(`credential: ${msg('step_up.passkey_not_started')}`);
      await context.passkeys.authenticate(rp, body.credential, ceremony.challenge, auth.userId);
    }
    return { success: true, message: '', data: await openStepUp(context, auth, body.method) };
  });
};
