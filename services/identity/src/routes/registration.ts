import crypto from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailBodySchema, localeFromAcceptLanguage, passwordResetBodySchema, registerBodySchema } from '@aigw/contracts';
import { UserError } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { checkEmail } from '../domain/email-rules.js';
import { hashPassword } from '../domain/passwords.js';
import { randomString, safeEqual } from '../domain/secrets.js';
import { publishSessionRevoked, publishUserRegistered, requestMail } from '../events.js';
import { insertUser, languageOf } from '../users.js';

/** Verification codes and reset links live in Kv so every replica sees them. */
const VERIFICATION_TTL_MS = 10 * 60_000;
const RESET_TTL_MS = 15 * 60_000;
/** The console locks resending for 30 seconds; the server enforces it too. */
const RESEND_LOCK_MS = 30_000;

const verificationKey = (email: string) => `identity:verification:${email.toLowerCase()}`;
const resetKey = (email: string) => `identity:reset:${email.toLowerCase()}`;

/** Registration, email verification codes and password reset. */
export const registrationRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, options, kv, bus, sessions } = context;
  const users = db.getRepository(UserEntity);

  const emailRules = () => ({
    domainRestriction: options.get('EmailDomainRestrictionEnabled'),
    whitelist: options.get('EmailDomainWhitelist'),
    aliasRestriction: options.get('EmailAliasRestrictionEnabled'),
  });

  const lockResend = async (email: string, purpose: string) => {
    if (!(await kv.setIfAbsent(`identity:resend:${purpose}:${email.toLowerCase()}`, '1', { ttlMs: RESEND_LOCK_MS }))) {
      throw new UserError('please wait 30 seconds before asking again');
    }
  };

  app.post('/api/user/register', {
    schema: { body: registerBodySchema, querystring: z.object({ turnstile: z.string().optional() }) },
    config: { access: 'public' },
  }, async (request) => {
    if (!options.get('RegisterEnabled')) throw new UserError('the administrator has turned off new-user registration');
    if (!options.get('PasswordRegisterEnabled')) throw new UserError('the administrator has turned off registration with a password; use a third-party login');
    const body = request.body;
    let email = '';
    if (options.get('EmailVerificationEnabled')) {
      if (!body.email) throw new UserError('email: required while email verification is on');
      if (!body.verification_code) throw new UserError('verification_code: please enter email verification code');
      const rejected = checkEmail(body.email, emailRules());
      if (rejected) throw new UserError(`email: ${rejected}`);
      const expected = await kv.get(verificationKey(body.email));
      if (!expected || !safeEqual(expected, body.verification_code)) throw new UserError('verification_code: wrong or expired verification code');
      email = body.email;
    }
    const inviter = body.aff_code ? await users.findOneBy({ aff_code: body.aff_code }) : null;
    const user = await insertUser(db.manager, {
      username: body.username,
      passwordHash: await hashPassword(body.password),
      email,
      inviterId: inviter && inviter.deleted_at === null ? inviter.id : 0,
      language: languageOf(request.headers['accept-language']),
    });
    if (email) await kv.delete(verificationKey(email));
    await publishUserRegistered(bus, user, 'register');
    return { success: true, message: '' };
  });

  // Mails go out on POST only (rule R12); the human check, when on, comes as `?turnstile=` as on register.
  const mailRoute = { schema: { body: emailBodySchema, querystring: z.object({ turnstile: z.string().optional() }) }, config: { access: 'public' as const } };

  app.post('/api/verification', mailRoute, async (request) => {
    const { email } = request.body;
    const rejected = checkEmail(email, emailRules());
    if (rejected) throw new UserError(`email: ${rejected}`);
    if (await users.existsBy({ email })) throw new UserError('email: already used');
    await lockResend(email, 'verification');
    const code = crypto.randomBytes(3).toString('hex');
    await kv.set(verificationKey(email), code, { ttlMs: VERIFICATION_TTL_MS });
    await requestMail(bus, { to: email, template: 'verification_code', params: { code, minutes: String(VERIFICATION_TTL_MS / 60_000), system_name: options.get('SystemName') }, locale: localeFromAcceptLanguage(request.headers['accept-language']) });
    return { success: true, message: '' };
  });

  app.post('/api/reset_password', mailRoute, async (request) => {
    const { email } = request.body;
    await lockResend(email, 'reset');
    const user = await users.findOneBy({ email });
    // Same answer whether or not the email is registered: no account enumeration.
    if (user && user.deleted_at === null) {
      const token = crypto.randomBytes(16).toString('hex');
      await kv.set(resetKey(email), token, { ttlMs: RESET_TTL_MS });
      const link = `${options.get('ServerAddress')}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
      await requestMail(bus, { to: email, template: 'password_reset', params: { link, minutes: String(RESET_TTL_MS / 60_000), system_name: options.get('SystemName') }, locale: localeFromAcceptLanguage(request.headers['accept-language']) });
    }
    return { success: true, message: '' };
  });

  app.post('/api/user/reset', { schema: { body: passwordResetBodySchema }, config: { access: 'public' } }, async (request) => {
    const { email, token } = request.body;
    const expected = await kv.take(resetKey(email));
    const user = expected && safeEqual(expected, token) ? await users.findOneBy({ email }) : null;
    if (!user || user.deleted_at !== null) throw new UserError('the reset link is invalid or has expired');
    const password = randomString(12);
    // Sessions and the system access token end with the old password (issue 22.6).
    await users.update({ id: user.id }, { password_hash: await hashPassword(password), password_is_default: false, access_token_hash: null });
    await sessions.revokeAll(user.id);
    await publishSessionRevoked(bus, user.id, null);
    return { success: true, message: '', data: password };
  });
};
