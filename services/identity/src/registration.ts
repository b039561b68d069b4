import crypto from 'node:crypto';
import { msg, type Locale, type RegisterBody } from '@aigw/contracts';
import { requestTyped, UserError, type Kv } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { checkEmail } from './domain/email-rules.js';
import { hashPassword } from './domain/passwords.js';
import { randomString, safeEqual } from './domain/secrets.js';
import { publishUserRegistered, requestMail } from './events.js';
import { newPasswordColumns, saveProfile } from './profile.js';
import { ensureEmailFree, insertUser, inviterIdOf } from './users.js';

/**
 * Registration with a password, email verification codes and the password reset. Codes and reset
 * links live in Kv so every replica sees them.
 */

const VERIFICATION_TTL_MS = 10 * 60_000;
const RESET_TTL_MS = 15 * 60_000;
/** The console locks resending for 30 seconds; the server enforces it too. */
const RESEND_LOCK_MS = 30_000;

const verificationKey = (email: string) => `identity:verification:${email.toLowerCase()}`;
const resetKey = (email: string) => `identity:reset:${email.toLowerCase()}`;

/** Whether `code` is the verification code last mailed to `email` and still valid. */
export async function verificationCodeMatches(kv: Kv, email: string, code: string): Promise<boolean> {
  const expected = await kv.get(verificationKey(email));
  return expected ? safeEqual(expected, code) : false;
}

/** A used code is gone: it cannot verify a second registration or binding. */
export async function forgetVerificationCode(kv: Kv, email: string): Promise<void> {
  await kv.delete(verificationKey(email));
}

/** Why the email rules refuse `email` (a catalogue message), or null. */
function emailProblem(context: IdentityContext, email: string): string | null {
  const { options } = context;
  return checkEmail(email, {
    domainRestriction: options.get('EmailDomainRestrictionEnabled'),
    whitelist: options.get('EmailDomainWhitelist'),
    aliasRestriction: options.get('EmailAliasRestrictionEnabled'),
  });
}

const resendKey = (email: string, purpose: string) => `identity:resend:${purpose}:${email.toLowerCase()}`;

async function lockResend(context: IdentityContext, email: string, purpose: string): Promise<void> {
  if (!(await context.kv.setIfAbsent(resendKey(email, purpose), '1', { ttlMs: RESEND_LOCK_MS }))) {
    throw new UserError(msg('verify.resend_wait', { seconds: String(RESEND_LOCK_MS / 1000) }));
  }
}

/** How long asking for a code waits to hear whether its mail went: a mail server answers well within it. */
const MAIL_OUTCOME_WAIT_MS = 5_000;

/**
 * Waits (at most MAIL_OUTCOME_WAIT_MS) for the first attempt of the mail `cause` ordered: when the
 * mail server did not take it (down, wrong credentials, the address refused), the user hears so
 * now, with its answer, and may ask again at once. A slower attempt, or a notifier that does not
 * answer (the order waits on the bus), counts as sent.
 */
async function confirmMailed(context: IdentityContext, cause: string, email: string, purpose: string): Promise<void> {
  let outcome;
  try {
    outcome = await requestTyped(context.bus, 'notifier.mail.outcome', { cause, wait_ms: MAIL_OUTCOME_WAIT_MS }, { timeoutMs: MAIL_OUTCOME_WAIT_MS + 2_000 });
  } catch (error) {
    context.logger.warn({ err: error }, 'mail outcome unknown: the notifier did not answer');
    return;
  }
  if (outcome.status !== 'failed') return;
  await context.kv.delete(resendKey(email, purpose));
  // The mail server's own answer (its SMTP words, no secret) says why.
  const reason = outcome.error;
  throw new UserError(reason ? msg('verify.mail_refused', { reason }) : msg('verify.mail_refused_no_reason'), 'mail_failed');
}

/**
 * A registration with username and password, while the options allow it; with the verified
 * email while email verification is on. `language` is the console's (see `languageOf`).
 */
export async function registerWithPassword(context: IdentityContext, body: RegisterBody, language: string): Promise<void> {
  const { options, kv } = context;
  if (!options.get('RegisterEnabled')) throw new UserError(msg('signup.disabled'));
  if (!options.get('PasswordRegisterEnabled')) throw new UserError(msg('signup.password_disabled'));
  let email = '';
  if (options.get('EmailVerificationEnabled')) {
    if (!body.email) throw new UserError(`email: ${msg('signup.email_required')}`);
    if (!body.verification_code) throw new UserError(`verification_code: ${msg('signup.code_required')}`);
    const rejected = emailProblem(context, body.email);
    if (rejected) throw new UserError(`email: ${rejected}`);
    if (!(await verificationCodeMatches(kv, body.email, body.verification_code))) throw new UserError(`verification_code: ${msg('signup.code_wrong')}`);
    email = body.email;
  }
  const user = await insertUser(context.db.manager, {
    username: body.username,
    passwordHash: await hashPassword(body.password),
    email,
    inviterId: await inviterIdOf(context.db.manager, body.aff_code),
    language,
  });
  if (email) await forgetVerificationCode(kv, email);
  await publishUserRegistered(context.bus, user, 'register');
}

/** No mail server set: refused at once, rather than answered with success for a mail that can never go. */
function refuseWithoutMailServer(context: IdentityContext): void {
  if (!context.options.get('SMTPServer')) throw new UserError(msg('verify.no_mail_server'), 'mail_unavailable');
}

/** Mails a verification code to an address no user has, that the email rules allow. */
export async function sendVerificationCode(context: IdentityContext, email: string, locale: Locale): Promise<void> {
  refuseWithoutMailServer(context);
  const rejected = emailProblem(context, email);
  if (rejected) throw new UserError(`email: ${rejected}`);
  await ensureEmailFree(context.db.manager, email);
  await lockResend(context, email, 'verification');
  const code = crypto.randomBytes(3).toString('hex');
  await context.kv.set(verificationKey(email), code, { ttlMs: VERIFICATION_TTL_MS });
  const ordered = await requestMail(context.bus, {
    to: email,
    template: 'verification_code',
    params: { code, minutes: String(VERIFICATION_TTL_MS / 60_000), system_name: context.options.get('SystemName') },
    locale,
  });
  await confirmMailed(context, ordered.id, email, 'verification');
}

/**
 * Mails a reset link when the address is a user's; the caller answers the same either way (no
 * account enumeration, so a failed send is not waited for: the answer would tell the address has
 * an account; root sees it among the deliveries).
 */
export async function sendPasswordReset(context: IdentityContext, email: string, locale: Locale): Promise<void> {
  const { options, kv } = context;
  refuseWithoutMailServer(context);
  await lockResend(context, email, 'reset');
  const user = await context.db.manager.findOneBy(UserEntity, { email });
  if (!user || user.deleted_at !== null) return;
  const token = crypto.randomBytes(16).toString('hex');
  await kv.set(resetKey(email), token, { ttlMs: RESET_TTL_MS });
  const link = `${options.get('ServerAddress')}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
  await requestMail(context.bus, {
    to: email,
    template: 'password_reset',
    params: { link, minutes: String(RESET_TTL_MS / 60_000), system_name: options.get('SystemName') },
    locale,
  });
}

/**
 * Completes a reset link (once): the user gets a new random password, returned to be shown, and
 * every session and the system access token end with the old one (issue 22.6).
 */
export async function resetPassword(context: IdentityContext, email: string, token: string): Promise<string> {
  const expected = await context.kv.take(resetKey(email));
  const user = expected && safeEqual(expected, token) ? await context.db.manager.findOneBy(UserEntity, { email }) : null;
  if (!user || user.deleted_at !== null) throw new UserError(msg('auth.reset_link_invalid'));
  const password = randomString(12);
  await saveProfile(context, user.id, await newPasswordColumns(password));
  return password;
}
