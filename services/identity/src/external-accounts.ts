import { DISPLAY_NAME_MAX, msg, UserStatus } from '@aigw/contracts';
import { UserError } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { hashPassword } from './domain/passwords.js';
import { randomString } from './domain/secrets.js';
import { publishUserRegistered, publishUserUpdated } from './events.js';
import type { ExternalAccount, ExternalLogin } from './oauth-providers.js';
import { acceptNewUsername, findByBinding, insertUser, inviterIdOf, loadActiveUser, usernameTaken, type BindingColumn } from './users.js';

/**
 * Accounts of third-party logins (GitHub, LinuxDO, OIDC, WeChat, Telegram) bound to users: who
 * signs in with one, the user registered on first use, and binding one to a signed-in user.
 */

/** A user found by a bound account may sign in only while it is neither deregistered nor banned. */
export function ensureMaySignIn(user: UserEntity): UserEntity {
  if (user.deleted_at !== null) throw new UserError(msg('auth.account_deleted'));
  if (user.status !== UserStatus.Enabled) throw new UserError(msg('auth.user_banned'));
  return user;
}

/**
 * `<prefix>_<max id + 1>` as the established product names them, or the provider's suggestion
 * when it passes the username rules (normalised, one script, no invisible characters) and is
 * free regardless of case: a provider cannot hand out a look-alike of another user's name.
 */
async function freshUsername(context: Pick<IdentityContext, 'db'>, prefix: string, suggested = ''): Promise<string> {
  const manager = context.db.manager;
  if (suggested.trim()) {
    const accepted = await acceptNewUsername(manager, suggested).catch((error: unknown) => {
      if (error instanceof UserError) return null;
      throw error;
    });
    if (accepted) return accepted;
  }
  let n = ((await manager.maximum(UserEntity, 'id')) ?? 0) + 1;
  while (await usernameTaken(manager, `${prefix}_${n}`)) n++;
  return `${prefix}_${n}`;
}

/** Registers the account's owner on first use, while registration is open, with the account bound. */
async function registerExternal(
  context: IdentityContext,
  login: ExternalLogin,
  account: ExternalAccount,
  inviteCode: string,
  language: string,
): Promise<UserEntity> {
  if (!context.options.get('RegisterEnabled')) throw new UserError(msg('signup.disabled'));
  const inviterId = await inviterIdOf(context.db.manager, inviteCode);
  // The account signs in through the provider only: its password is a random one nobody knows.
  const passwordHash = await hashPassword(randomString(32));
  for (let attempt = 0; ; attempt++) {
    const username = await freshUsername(context, login.usernamePrefix, account.username);
    try {
      const user = await insertUser(context.db.manager, {
        username,
        passwordHash,
        displayName: account.displayName?.slice(0, DISPLAY_NAME_MAX),
        inviterId,
        language,
        bindings: { [login.column]: account.id },
      });
      await publishUserRegistered(context.bus, user, 'register');
      return user;
    } catch (error) {
      // A concurrent registration took the same name: pick again (asked of the table, not read from the message's words).
      if (!(error instanceof UserError) || attempt >= 3 || !(await usernameTaken(context.db.manager, username))) throw error;
    }
  }
}

/** The user signing in with a third-party account: its owner, or a new user registered with it. */
export async function externalAccountUser(
  context: IdentityContext,
  login: ExternalLogin,
  account: ExternalAccount,
  inviteCode: string,
  language: string,
): Promise<UserEntity> {
  const owner = await findByBinding(context.db.manager, login.column, account.id);
  return owner ? ensureMaySignIn(owner) : registerExternal(context, login, account, inviteCode, language);
}

/** Binds an account to the signed-in user, unless another user, deregistered ones included, holds it. */
export async function bindExternalAccount(
  context: IdentityContext,
  userId: number,
  login: { column: BindingColumn; label: string },
  accountId: string,
): Promise<void> {
  const self = await loadActiveUser(context.db.manager, userId);
  const owner = await findByBinding(context.db.manager, login.column, accountId);
  if (owner && owner.id !== self.id) throw new UserError(msg('oauth.already_bound', { provider: login.label }));
  await context.db.manager.update(UserEntity, { id: self.id }, { [login.column]: accountId });
  await publishUserUpdated(context.bus, self);
}
