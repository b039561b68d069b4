import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IsNull } from 'typeorm';
import { idSchema, msg, twoFactorCodeBodySchema, UserStatus, type BackupCodes, type TwoFactorStats, type TwoFactorStatus } from '@aigw/contracts';
import { recordAudit, requireAuth, UserError } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { pendingTwoFactorLogin } from '../ceremonies.js';
import { endSessions } from '../sessions.js';
import { loadManagedUser } from '../user-admin.js';
import { signIn } from '../sign-in.js';
import { userTarget } from '../audit-trail.js';

const idParams = z.object({ id: idSchema });

/**
 * Two-factor sign-in with TOTP and backup codes (the established product's /api/user/2fa/*),
 * the second step of a login, and an admin's reset of a lower-level user's 2FA.
 */
export const twoFactorRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, secondFactors, options, bus, logger } = context;
  const users = db.getRepository(UserEntity);
  const user = { access: 'user' } as const;

  app.get('/api/user/2fa/status', { config: user }, async (request) => {
    const { enabled, backupCodesRemaining, locked } = await secondFactors.status(requireAuth(request).userId);
    const data: TwoFactorStatus = { enabled, locked, ...(enabled ? { backup_codes_remaining: backupCodesRemaining } : {}) };
    return { success: true, message: '', data };
  });

  // A new secret and backup codes, in force once a first code confirms them (enable).
  app.post('/api/user/2fa/setup', { config: user }, async (request) => {
    const auth = requireAuth(request);
    const data = await secondFactors.beginSetup(auth.userId, options.get('SystemName'), auth.username);
    return { success: true, message: msg('two_factor.setup_started'), data };
  });

  app.post('/api/user/2fa/enable', { schema: { body: twoFactorCodeBodySchema }, config: user }, async (request) => {
    const auth = requireAuth(request);
    await secondFactors.enable(auth.userId, request.body.code);
    logger.info({ userId: auth.userId }, 'two-factor authentication enabled');
    return { success: true, message: msg('two_factor.enabled') };
  });

  // An authenticator code or a backup code: someone who lost the phone can still turn it off.
  app.post('/api/user/2fa/disable', { schema: { body: twoFactorCodeBodySchema }, config: user }, async (request) => {
    const auth = requireAuth(request);
    await secondFactors.verifyCode(auth.userId, request.body.code, { backup: true });
    await secondFactors.disable(auth.userId);
    logger.info({ userId: auth.userId }, 'two-factor authentication disabled');
    return { success: true, message: msg('two_factor.disabled') };
  });

  // New backup codes need a code of the authenticator app itself (a backup code would renew itself).
  app.post('/api/user/2fa/backup_codes', { schema: { body: twoFactorCodeBodySchema }, config: user }, async (request) => {
    const auth = requireAuth(request);
    await secondFactors.verifyCode(auth.userId, request.body.code, { backup: false });
    return {
      success: true,
      message: msg('two_factor.backup_codes_renewed'),
      data: { backup_codes: await secondFactors.replaceBackupCodes(auth.userId) } satisfies BackupCodes,
    };
  });

  // The second step of a sign-in: the browser's pending login (single use, 5 minutes) and a code.
  app.post('/api/user/login/2fa', { schema: { body: twoFactorCodeBodySchema }, config: { access: 'public' } }, async (request, reply) => {
    const pending = pendingTwoFactorLogin(context.kv);
    const expired = msg('auth.sign_in_expired');
    const started = await pending.peek(request);
    if (!started) throw new UserError(expired);
    const found = await users.findOneBy({ id: started.user_id });
    if (!found || found.deleted_at !== null || found.status !== UserStatus.Enabled) throw new UserError(msg('auth.user_banned'));
    await secondFactors.verifyCode(found.id, request.body.code, { backup: true });
    // Taken only now, so a mistyped code can be corrected; a second request racing this one gets nothing.
    if (!(await pending.take(request, reply))) throw new UserError(expired);
    return { success: true, message: '', data: await signIn(context, request, reply, found, { secondFactorDone: true }) };
  });

  app.get('/api/user/2fa/stats', { config: { access: 'admin' } }, async () => {
    const { enabledUsers, passkeyUsers } = await secondFactors.stats();
    const data: TwoFactorStats = { total_users: await users.countBy({ deleted_at: IsNull() }), enabled_users: enabledUsers, passkey_users: passkeyUsers };
    return { success: true, message: '', data };
  });

  // Lower-level users only (the level rules); the user signs in again with the password alone.
  app.delete('/api/user/:id/2fa', { schema: { params: idParams }, config: { access: 'admin' } }, async (request) => {
    const actor = requireAuth(request);
    const target = await loadManagedUser(context, actor.role, request.params.id, 'reset_2fa');
    if (!(await secondFactors.disable(target.id))) throw new UserError(msg('two_factor.user_not_enabled'));
    await endSessions(context, target.id);
    logger.info({ actorId: actor.userId, targetId: target.id }, 'two-factor authentication reset by an admin');
    await recordAudit(request, bus, 'identity', {
      action: 'user.2fa_reset',
      target: userTarget(target),
      before: { two_factor_enabled: true },
      after: { two_factor_enabled: false },
    });
    return { success: true, message: msg('two_factor.user_reset') };
  });
};
