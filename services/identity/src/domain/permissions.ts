import { Role } from '@aigw/contracts';

/** What an admin may do to another user (docs/product.md section 3). */
export const userActions = ['get', 'create', 'update', 'promote', 'demote', 'disable', 'enable', 'delete', 'reset_2fa', 'reset_passkey'] as const;
export type UserAction = (typeof userActions)[number];

export type Decision = { allowed: true } | { allowed: false; reason: string };

const allow: Decision = { allowed: true };
const deny = (reason: string): Decision => ({ allowed: false, reason });

/**
 * The level rules, as one pure function:
 * - only admins (role >= 10) manage users;
 * - nobody gets, updates or changes users of the same or a higher level (so the super admin
 *   can never be demoted, disabled or deleted, and nobody manages themselves here);
 * - nobody creates a user at or above their own level;
 * - only the super admin promotes or demotes; promotion makes an ordinary user an admin,
 *   demotion makes an admin an ordinary user;
 * - resetting a user's 2FA or passkeys follows the same level rule (a lower level only: the
 *   established product once let admins reset their peers' and root's passkeys).
 * For 'create', `targetRole` is the role the new user would get.
 */
export function decideUserAction(actorRole: number, targetRole: number, action: UserAction): Decision {
  if (actorRole < Role.Admin) return deny('insufficient permissions');
  if (action === 'create') {
    return targetRole < actorRole ? allow : deny('cannot create a user with a role at or above your own');
  }
  if (targetRole >= actorRole) return deny('no permission to manage a user of the same or a higher level');
  if (action === 'promote') {
    if (actorRole < Role.Root) return deny('only the super admin can promote users');
    return targetRole === Role.Common ? allow : deny('the user is already an admin');
  }
  if (action === 'demote') {
    if (actorRole < Role.Root) return deny('only the super admin can demote users');
    return targetRole === Role.Admin ? allow : deny('the user is already an ordinary user');
  }
  return allow;
}
