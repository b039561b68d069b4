import { Role, type User } from '@aigw/contracts';

/** What the signed-in user may see (docs/product.md section 3); the server enforces the same. */
export interface Access {
  signedIn: boolean;
  /** Role >= 10: channels, redemption codes, users, all logs. */
  isAdmin: boolean;
  /** Role >= 100: the operation, system and other settings tabs. */
  isRoot: boolean;
}

export function accessOf(user: Pick<User, 'role'> | null): Access {
  const role = user?.role ?? Role.Guest;
  return { signedIn: user !== null, isAdmin: role >= Role.Admin, isRoot: role >= Role.Root };
}
