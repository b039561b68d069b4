import { msg, Role, type UpdateSelfBody, type User } from '@aigw/contracts';
import { ForbiddenError, passwordChangeRequiredMessage, UserError, type AuthContext } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { randomString, sha256 } from './domain/secrets.js';
import { fetchOwnBalance } from './balances.js';
import { publishSessionRevoked, publishUserUpdated } from './events.js';
import { deregisterUser, profileChanges, saveProfile } from './profile.js';
import { forgetVerificationCode, verificationCodeMatches } from './registration.js';
import { ensureEmailFree, loadActiveUser, toUserView } from './users.js';

/**
 * The signed-in user's own account: profile, password, access token, invite code, usable groups,
 * email binding and deregistration. Every function takes the caller's id from the session, so
 * a user only ever reaches their own row.
 */

/** The profile with the balance (zeros while billing does not answer). */
export async function selfView(context: IdentityContext, userId: number): Promise<User> {
  const user = await loadActiveUser(context.db.manager, userId);
  return toUserView(user, await fetchOwnBalance(context.bus, context.logger, user.id));
}

/**
 * The user's own edit. A root that must change the factory password first may send nothing but a
 * new password (rule R8). A new password ends every other session and the access token; the
 * session that made the change (`currentSessionSecret`) stays.
 */
export async function updateSelf(
  context: IdentityContext,
  auth: Pick<AuthContext, 'userId' | 'passwordChangeRequired'>,
  body: UpdateSelfBody,
  currentSessionSecret: string | undefined,
): Promise<void> {
  if (auth.passwordChangeRequired && !body.password) throw new ForbiddenError(passwordChangeRequiredMessage);
  const user = await loadActiveUser(context.db.manager, auth.userId);
  const changes = await profileChanges(context.db.manager, user, body, { currentPassword: body.original_password ?? '' });
  await saveProfile(context, user.id, changes, currentSessionSecret ? sha256(currentSessionSecret) : undefined);
  if (changes.username || changes.display_name !== undefined) await publishUserUpdated(context.bus, { ...user, ...changes });
}

/** Deregisters the caller; the super admin cannot. */
export async function deleteSelf(context: IdentityContext, userId: number): Promise<void> {
  const user = await loadActiveUser(context.db.manager, userId);
  if (user.role >= Role.Root) throw new UserError(msg('self.root_cannot_delete'));
  await deregisterUser(context, user.id);
}

/** A new system access token (returned once; only its hash is kept); the previous one stops working everywhere. */
export async function renewAccessToken(context: IdentityContext, userId: number): Promise<string> {
  const user = await loadActiveUser(context.db.manager, userId);
  const token = randomString(32);
  await context.db.manager.update(UserEntity, { id: user.id }, { access_token_hash: sha256(token) });
  await publishSessionRevoked(context.bus, user.id, null);
  return token;
}

export async function inviteCode(context: IdentityContext, userId: number): Promise<string> {
  return (await loadActiveUser(context.db.manager, userId)).aff_code;
}

/** The groups the caller may pick for a token (the configured ones and their own) that have a ratio, with description and ratio. */
export async function usableGroups(context: IdentityContext, userId: number): Promise<Record<string, { ratio: number; desc: string }>> {
  const user = await loadActiveUser(context.db.manager, userId);
  const ratios = context.options.get('GroupRatio');
  const usable: Record<string, string> = { ...context.options.get('UserUsableGroups') };
  if (!(user.group in usable)) usable[user.group] = 'your group';
  return Object.fromEntries(
    Object.entries(usable).flatMap(([group, desc]) => {
      const ratio = ratios[group];
      return ratio === undefined ? [] : [[group, { ratio, desc }]];
    }),
  );
}

/** Binds a verified email (the code the verification mail sent) that no other user has. */
export async function bindEmail(context: IdentityContext, userId: number, email: string, code: string): Promise<void> {
  const user = await loadActiveUser(context.db.manager, userId);
  if (!(await verificationCodeMatches(context.kv, email, code))) throw new UserError(`code: ${msg('self.wrong_code')}`, 'invalid_request', 200, 'code');
  await ensureEmailFree(context.db.manager, email, user.id);
  await forgetVerificationCode(context.kv, email);
  await context.db.manager.update(UserEntity, { id: user.id }, { email });
  await publishUserUpdated(context.bus, { ...user, email });
}
