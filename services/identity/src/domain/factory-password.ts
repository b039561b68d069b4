import { Role } from '@aigw/contracts';

/**
 * Rule R8: a super admin still holding the factory password (`password_is_default`: set when
 * root was created without INITIAL_ROOT_PASSWORD, cleared by every password change; a chosen
 * password is at least 8 characters, so the 6-character default cannot come back) may, while the
 * server listens beyond loopback, only read the own profile and change the password. On
 * loopback the two-command quick start stays usable, with the console's warning.
 */
export function passwordChangeRequired(user: { role: number; password_is_default: boolean }, reachableBeyondLoopback: boolean): boolean {
  return reachableBeyondLoopback && user.role >= Role.Root && user.password_is_default;
}
