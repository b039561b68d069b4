import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loginBodySchema, UserStatus, type LoginResult, type TwoFactorChallenge } from '@aigw/contracts';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, UserError } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { passwordChangeRequired } from '../domain/factory-password.js';
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../domain/passwords.js';
import { fetchOwnBalance } from '../balances.js';
import { publishSessionRevoked } from '../events.js';
import { SESSION_TTL_MS } from '../sessions.js';
import { findLoginUser, languageOf, toUserView } from '../users.js';
import { pendingTwoFactorLogin } from '../ceremonies.js';

/**
 * Starts a session for `user` (cookie set on the reply) and returns what the login answers; for a
 * user with two-factor sign-in, a pending login instead (`require_2fa`), unless `secondFactorDone`.
 */
export async function signIn(
  context: IdentityContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserEntity,
  how: { secondFactorDone?: boolean } = {},
): Promise<LoginResult | TwoFactorChallenge> {
  // The console sends its language on every call: mails to this user are written in it from now on.
  const language = languageOf(request.headers['accept-language']);
  if (language && language !== user.language) {
    await context.db.getRepository(UserEntity).update({ id: user.id }, { language });
    user.language = language;
  }
  // Two-factor users get no session yet: the browser holds a pending login for POST /api/user/login/2fa.
  if (!how.secondFactorDone && (await context.secondFactors.totpEnabled(user.id))) {
    await pendingTwoFactorLogin(context.kv).start(request, reply, { user_id: user.id });
    return { require_2fa: true };
  }
  const { secret } = await context.sessions.create(user.id);
  setCookie(reply, SESSION_COOKIE, secret, { maxAgeSeconds: SESSION_TTL_MS / 1000, secure: request.protocol === 'https' });
  const balance = await fetchOwnBalance(context.bus, context.logger, user.id);
  return {
    ...toUserView(user, balance),
    default_password: user.password_is_default,
    require_password_change: passwordChangeRequired(user, context.reachableBeyondLoopback),
  };
}

const wrongCredentials = 'username or password is wrong, or the user has been banned';

/** Login (username or email) and logout. The session cookie is HttpOnly and SameSite=Strict. */
export const sessionRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, options, sessions, bus } = context;

  app.post('/api/user/login', { schema: { body: loginBodySchema }, config: { access: 'public' } }, async (request, reply) => {
    if (!options.get('PasswordLoginEnabled')) throw new UserError('the administrator has turned off password login');
    const user = await findLoginUser(db, request.body.username);
    // Verify against a dummy hash when the user is unknown, so timing does not tell.
    const valid = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), request.body.password);
    if (!user || !valid) throw new UserError(wrongCredentials);
    if (user.status !== UserStatus.Enabled) throw new UserError('the user has been banned');
    if (needsRehash(user.password_hash)) {
      await db.getRepository(UserEntity).update({ id: user.id }, { password_hash: await hashPassword(request.body.password) });
    }
    const data = await signIn(context, request, reply, user);
    return { success: true, message: 'require_2fa' in data ? 'enter the code of your authenticator app' : '', data };
  });

  // POST only: a cross-site link must not end a session (rule R12).
  app.post('/api/user/logout', { config: { access: 'public' } }, async (request, reply) => {
    const secret = readCookie(request, SESSION_COOKIE);
    if (secret) {
      const revoked = await sessions.revoke(secret);
      if (revoked) await publishSessionRevoked(bus, revoked.userId, revoked.hash);
    }
    clearCookie(reply, SESSION_COOKIE);
    return { success: true, message: '' };
  });
};
