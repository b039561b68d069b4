import { msg, Role } from '@aigw/contracts';

/** What an admin may do to another user (docs/product.md section 3). */
export const userActions = ['get', 'create', 'update', 'promote', 'demote', 'disable', 'enable', 'delete', 'reset_2fa', 'reset_passkey'] as const;
export type UserAction = (typeof userActions)[number];

/** A refusal's reason is a catalogue message (`msg`): the caller throws it as it is. */
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
  if (actorRole < Role.Admin) return deny(msg('common.forbidden'));
  if (action === 'create') {
    return targetRole < actorRole ? allow : deny(msg('users.create_role_too_high'));
  }
  if (targetRole >= actorRole) return deny(msg('users.manage_same_or_higher'));
  if (action === 'promote') {
    if (actorRole < Role.Root) return deny(msg('users.promote_root_only'));
    return targetRole === Role.Common ? allow : deny(msg('users.already_admin'));
  }
  if (action === 'demote') {
    if (actorRole < Role.Root) return deny(msg('users.demote_root_only'));
    return targetRole === Role.Admin ? allow : deny(msg('users.already_common'));
  }
  return allow;
}
