import type { EntityManager } from 'typeorm';
import { msg } from '@aigw/contracts';
import { UserError } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { hashPassword, verifyPassword } from './domain/passwords.js';
import { publishUserDeleted } from './events.js';
import { endSessions } from './sessions.js';
import { renameFields, updateUser } from './users.js';

/**
 * What a user and an admin change of an account alike (the self edit, the admin's user editor, a
 * password reset, a deregistration), so both paths end sessions and tokens the same way.
 */

/** The profile fields the self edit and the admin's editor share. */
export interface ProfileEdit {
  username?: string;
  display_name?: string;
  password?: string;
}

/**
 * The columns a new password sets: its hash, the factory-password flag cleared (rule R8), and no
 * system access token, which ends with the old password (issue 22.6).
 */
export async function newPasswordColumns(password: string): Promise<Pick<UserEntity, 'password_hash' | 'password_is_default' | 'access_token_hash'>> {
  return { password_hash: await hashPassword(password), password_is_default: false, access_token_hash: null };
}

/**
 * The column changes of a profile edit of `user`: a rename held to the username rules, the
 * display name, a new password. A user changing their own password proves the current one
 * (`by.currentPassword`); an admin does not.
 */
export async function profileChanges(
  manager: EntityManager,
  user: UserEntity,
  edit: ProfileEdit,
  by: 'admin' | { currentPassword: string },
): Promise<Partial<UserEntity>> {
  const changes: Partial<UserEntity> = { ...(await renameFields(manager, user, edit.username)) };
  if (edit.display_name !== undefined) changes.display_name = edit.display_name;
  if (edit.password) {
    if (by !== 'admin' && !(await verifyPassword(user.password_hash, by.currentPassword)))
      throw new UserError(`original_password: ${msg('self.wrong_password')}`, 'invalid_request', 200, 'original_password');
    Object.assign(changes, await newPasswordColumns(edit.password));
  }
  return changes;
}

/**
 * Writes a user's changes (a rename that lost a race for its name is refused as taken). A new
 * password ends every session of the user but `keepSessionHash` (the one that made the change).
 */
export async function saveProfile(
  context: Pick<IdentityContext, 'db' | 'sessions' | 'bus'>,
  userId: number,
  changes: Partial<UserEntity>,
  keepSessionHash?: string,
): Promise<void> {
  if (Object.keys(changes).length) await updateUser(context.db.manager, userId, changes);
  if (changes.password_hash) await endSessions(context, userId, keepSessionHash);
}

/**
 * Deregisters a user: the row stays (its name, email and bindings stay held), its access token and
 * every session end. Returns the columns it set.
 */
export async function deregisterUser(
  context: Pick<IdentityContext, 'db' | 'sessions' | 'bus'>,
  userId: number,
): Promise<Pick<UserEntity, 'deleted_at' | 'access_token_hash'>> {
  const changes = { deleted_at: Date.now(), access_token_hash: null };
  await context.db.manager.update(UserEntity, { id: userId }, changes);
  await endSessions(context, userId);
  await publishUserDeleted(context.bus, userId);
  return changes;
}
