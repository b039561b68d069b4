import type { FastifyReply, FastifyRequest } from 'fastify';
import { msg, UserStatus, type LoginResult, type TwoFactorChallenge } from '@aigw/contracts';
import { SESSION_COOKIE, setCookie, UserError } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { passwordChangeRequired } from './domain/factory-password.js';
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from './domain/passwords.js';
import { fetchOwnBalance } from './balances.js';
import { publishSessionRevoked } from './events.js';
import { SESSION_TTL_MS } from './sessions.js';
import { findLoginUser, languageOf, toUserView } from './users.js';
import { pendingTwoFactorLogin } from './ceremonies.js';

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

const wrongCredentials = msg('auth.wrong_credentials');

/**
 * The user a password login names (username or email) when the password is right and the user
 * enabled; the stored hash is upgraded when its parameters are outdated.
 */
export async function checkPasswordLogin(context: IdentityContext, login: string, password: string): Promise<UserEntity> {
  if (!context.options.get('PasswordLoginEnabled')) throw new UserError(msg('auth.password_login_disabled'));
  const user = await findLoginUser(context.db, login);
  // Verify against a dummy hash when the user is unknown, so timing does not tell.
  const valid = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), password);
  if (!user || !valid) throw new UserError(wrongCredentials);
  if (user.status !== UserStatus.Enabled) throw new UserError(msg('auth.user_banned'));
  if (needsRehash(user.password_hash)) {
    await context.db.getRepository(UserEntity).update({ id: user.id }, { password_hash: await hashPassword(password) });
  }
  return user;
}

/** Ends the session whose cookie secret this is, if it is live, and tells the services. */
export async function signOut(context: IdentityContext, secret: string): Promise<void> {
  const revoked = await context.sessions.revoke(secret);
  if (revoked) await publishSessionRevoked(context.bus, revoked.userId, revoked.hash);
}
