/** User roles (docs/product.md section 3). Anything else shows as 'unknown identity'. */
export const Role = {
  Guest: 0,
  Common: 1,
  Admin: 10,
  Root: 100,
} as const;
export type Role = (typeof Role)[keyof typeof Role];

/** User status: 1 activated, 2 banned. */
export const UserStatus = {
  Enabled: 1,
  Disabled: 2,
} as const;
export type UserStatus = (typeof UserStatus)[keyof typeof UserStatus];

/** Actions of `POST /api/user/manage`. */
export const manageActions = ['promote', 'demote', 'disable', 'enable', 'delete'] as const;
export type ManageAction = (typeof manageActions)[number];

/** Who may call a route. Services enforce this themselves from `request.auth`. */
export const accessLevels = ['public', 'user', 'admin', 'root'] as const;
export type Access = (typeof accessLevels)[number];

export const minimumRole: Record<Exclude<Access, 'public'>, Role> = {
  user: Role.Common,
  admin: Role.Admin,
  root: Role.Root,
};
