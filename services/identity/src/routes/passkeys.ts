import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idSchema, msg, passkeyRegisterBodySchema, UserStatus, webAuthnResponseSchema, type PasskeyStatus } from '@aigw/contracts';
import { ForbiddenError, NotFoundError, recordAudit, requireAuth, UserError } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { passkeyLoginCeremony, userCeremony } from '../ceremonies.js';
import { endSessions } from '../sessions.js';
import { loadManagedUser } from '../user-admin.js';
import { openStepUp, passkeyVerifyCeremony, stepUpSession } from './verify.js';
import { signIn } from '../sign-in.js';
import { userTarget } from '../audit-trail.js';

const idParams = z.object({ id: idSchema });

/**
 * Passkeys on the established product's routes: the caller's list, registration (begin/finish),
 * sign-in without a password (discoverable credentials), the step-up assertion (verify), removal,
 * and an admin's reset of a lower-level user's passkeys.
 */
export const passkeyRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, passkeys, stepUp, secondFactors, bus, logger } = context;
  const users = db.getRepository(UserEntity);
  const user = { access: 'user' } as const;
  const registration = userCeremony<{ challenge: string }>(context.kv, 'passkey_register');

  app.get('/api/user/passkey', { config: user }, async (request) => {
    const list = await passkeys.list(requireAuth(request).userId);
    const used = list.map((passkey) => passkey.last_used_at).filter((at): at is number => at !== null);
    const lastUsed = used.length > 0 ? Math.max(...used) : null;
    const data: PasskeyStatus = { enabled: list.length > 0, last_used_at: lastUsed, passkeys: list };
    return { success: true, message: '', data };
  });

  // Adding a passkey to an account that already has a second factor needs a fresh step-up: a
  // stolen session must not be able to plant its own way back in.
  app.post('/api/user/passkey/register/begin', { config: user }, async (request) => {
    const auth = requireAuth(request);
    const rp = passkeys.relyingParty(request);
    if (await secondFactors.hasAny(auth.userId)) {
      const verifiedAt = auth.session ? await stepUp.verifiedAt(auth.userId, auth.session) : null;
      if (verifiedAt === null) throw new ForbiddenError(msg('step_up.fresh_required'));
    }
    const found = await users.findOneByOrFail({ id: auth.userId });
    const { options, challenge } = await passkeys.registrationOptions(rp, { id: found.id, username: found.username, displayName: found.display_name });
    await registration.start(auth.userId, auth.session, { challenge });
    return { success: true, message: '', data: { options } };
  });

  app.post('/api/user/passkey/register/finish', { schema: { body: passkeyRegisterBodySchema }, config: user }, async (request) => {
    const auth = requireAuth(request);
    const rp = passkeys.relyingParty(request);
    const started = await registration.take(auth.userId, auth.session);
    if (!started) throw new UserError(msg('passkey.registration_expired'));
    const { name, ...response } = request.body;
    const created = await passkeys.register(rp, auth.userId, response, started.challenge, name ?? '');
    logger.info({ userId: auth.userId, passkeyId: created.id }, 'passkey registered');
    return { success: true, message: msg('passkey.registered'), data: created };
  });

  app.delete('/api/user/passkey', { config: user }, async (request) => {
    const auth = requireAuth(request);
    if ((await passkeys.remove(auth.userId)) === 0) throw new UserError(msg('passkey.none_registered'));
    return { success: true, message: msg('passkey.all_removed') };
  });

  app.delete('/api/user/passkey/:id', { schema: { params: idParams }, config: user }, async (request) => {
    const auth = requireAuth(request);
    if ((await passkeys.remove(auth.userId, request.params.id)) === 0) throw new NotFoundError(msg('passkey.not_found'));
    return { success: true, message: msg('passkey.removed') };
  });

  // Step-up with a passkey: an assertion of this challenge, sent to finish (or to /api/verify).
  app.post('/api/user/passkey/verify/begin', { config: user }, async (request) => {
    const auth = requireAuth(request);
    stepUpSession(auth);
    const rp = passkeys.relyingParty(request);
    const { options, challenge } = await passkeys.authenticationOptions(rp, auth.userId);
    await passkeyVerifyCeremony(context).start(auth.userId, auth.session, { challenge });
    return { success: true, message: '', data: { options } };
  });

  app.post('/api/user/passkey/verify/finish', { schema: { body: webAuthnResponseSchema }, config: user }, async (request) => {
    const auth = requireAuth(request);
    stepUpSession(auth);
    const rp = passkeys.relyingParty(request);
    const started = await passkeyVerifyCeremony(context).take(auth.userId, auth.session);
    if (!started) throw new UserError(msg('passkey.verification_expired'));
    await passkeys.authenticate(rp, request.body, started.challenge, auth.userId);
    return { success: true, message: '', data: await openStepUp(context, auth, 'passkey') };
  });

  // Sign-in with a passkey: a discoverable credential names its user; a passkey is a second factor in itself.
  app.post('/api/user/passkey/login/begin', { config: { access: 'public' } }, async (request, reply) => {
    const rp = passkeys.relyingParty(request);
    const { options, challenge } = await passkeys.authenticationOptions(rp);
    await passkeyLoginCeremony(context.kv).start(request, reply, { challenge });
    return { success: true, message: '', data: { options } };
  });

  app.post('/api/user/passkey/login/finish', { schema: { body: webAuthnResponseSchema }, config: { access: 'public' } }, async (request, reply) => {
    const rp = passkeys.relyingParty(request);
    const started = await passkeyLoginCeremony(context.kv).take(request, reply);
    if (!started) throw new UserError(msg('passkey.sign_in_expired'));
    const userId = await passkeys.authenticate(rp, request.body, started.challenge);
    const found = await users.findOneBy({ id: userId });
    if (!found || found.deleted_at !== null || found.status !== UserStatus.Enabled) throw new UserError(msg('auth.user_banned'));
    return { success: true, message: '', data: await signIn(context, request, reply, found, { secondFactorDone: true }) };
  });

  // Lower-level users only (the level rules, checked before anything else about the passkeys).
  app.delete('/api/user/:id/reset_passkey', { schema: { params: idParams }, config: { access: 'admin' } }, async (request) => {
    const actor = requireAuth(request);
    const target = await loadManagedUser(context, actor.role, request.params.id, 'reset_passkey');
    const removed = await passkeys.remove(target.id);
    if (removed === 0) throw new UserError(msg('passkey.user_has_none'));
    await endSessions(context, target.id);
    logger.info({ actorId: actor.userId, targetId: target.id }, 'passkeys reset by an admin');
    await recordAudit(request, bus, 'identity', {
      action: 'user.passkey_reset',
      target: userTarget(target),
      before: { passkeys: removed },
      after: { passkeys: 0 },
    });
    return { success: true, message: msg('passkey.user_reset') };
  });
};
