import { z } from 'zod';
import { rateLimitsSchema } from './limits.js';
import { manageActions, Role } from './roles.js';
import { idSchema } from './envelope.js';
import { normalizeUsername, usernameProblem } from './username.js';
import { msg } from './messages/index.js';

/** Limits of docs/product.md section 4. */
export const USERNAME_MAX = 12;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;
export const DISPLAY_NAME_MAX = 20;
export const EMAIL_MAX = 50;

/**
 * The user as the API shows it. A whitelist: the password hash and the access token are not
 * fields of this schema, so they cannot leak through it (rule R4).
 */
export const userSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  email: z.string(),
  github_id: z.string(),
  wechat_id: z.string(),
  telegram_id: z.string(),
  linux_do_id: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  group: z.string(),
  /** The user's own usage limits (set by admins; the group's and the default apply beneath them). */
  rate_limits: rateLimitsSchema,
  aff_code: z.string(),
  inviter_id: z.number().int(),
  quota: z.number().int(),
  used_quota: z.number().int(),
  request_count: z.number().int(),
  aff_count: z.number().int(),
  aff_quota: z.number().int(),
  aff_history_quota: z.number().int(),
  /** Time of deregistration (ISO), or null. */
  DeletedAt: z.string().nullable(),
});
export type User = z.infer<typeof userSchema>;

/** The money-side figures of a user, owned by billing and shown on user rows. */
export const userBalanceSchema = userSchema.pick({
  quota: true,
  used_quota: true,
  request_count: true,
  aff_count: true,
  aff_quota: true,
  aff_history_quota: true,
});
export type UserBalance = z.infer<typeof userBalanceSchema>;

/**
 * A user row of the admin views (the list, search and GET /api/user/{id}). Its balance figures
 * are billing's and are all null when billing did not answer: unknown, never shown or saved as 0.
 */
export const userRowSchema = userSchema.extend({
  quota: z.number().int().nullable(),
  used_quota: z.number().int().nullable(),
  request_count: z.number().int().nullable(),
  aff_count: z.number().int().nullable(),
  aff_quota: z.number().int().nullable(),
  aff_history_quota: z.number().int().nullable(),
});
export type UserRow = z.infer<typeof userRowSchema>;

export const emptyBalance: UserBalance = {
  quota: 0,
  used_quota: 0,
  request_count: 0,
  aff_count: 0,
  aff_quota: 0,
  aff_history_quota: 0,
};

/** A username as an edit sends it: the route holds it to the rules only when it differs from the current one (existing names stay). */
const usernameTooLong = msg('users.username_too_long', { maximum: String(USERNAME_MAX) });
const username = z.string().trim().min(1, msg('users.username_required')).max(USERNAME_MAX, usernameTooLong);
/** A username being taken (registration, admin create): NFKC-normalised, then held to the rules of username.ts. */
const newUsername = (emptyMessage: string) =>
  z
    .string()
    .transform(normalizeUsername)
    .pipe(z.string().min(1, emptyMessage).max(USERNAME_MAX, usernameTooLong))
    .superRefine((name, context) => {
      const problem = usernameProblem(name);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
const password = z
  .string()
  .min(PASSWORD_MIN, msg('users.password_too_short', { minimum: String(PASSWORD_MIN) }))
  .max(PASSWORD_MAX, msg('users.password_too_long', { maximum: String(PASSWORD_MAX) }));
const displayName = z
  .string()
  .trim()
  .max(DISPLAY_NAME_MAX, msg('users.display_name_too_long', { maximum: String(DISPLAY_NAME_MAX) }));
const email = z
  .string()
  .trim()
  .max(EMAIL_MAX)
  .pipe(z.email(msg('users.email_invalid')));

/** POST /api/user/register (`?turnstile=` in the query). */
export const registerBodySchema = z
  .object({
    username: newUsername(msg('users.username_required')),
    password,
    password2: z.string().optional(),
    email: z.union([z.literal(''), email]).optional(),
    verification_code: z.string().trim().max(32).optional(),
    aff_code: z.string().trim().max(32).optional(),
  })
  .refine((body) => body.password2 === undefined || body.password2 === body.password, {
    message: msg('users.passwords_differ'),
    path: ['password2'],
  });
export type RegisterBody = z.infer<typeof registerBodySchema>;

/** POST /api/user/login: `username` may also be the email. */
export const loginBodySchema = z.object({
  username: z.string().trim().min(1, msg('users.enter_credentials')).max(EMAIL_MAX),
  password: z.string().min(1, msg('users.enter_credentials')).max(128),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

/**
 * The login answer: the user, plus whether the factory default password is still in use, and
 * whether the server refuses everything else until it is changed (the factory password on a
 * server reachable beyond loopback, rule R8): the console opens the password dialog at once.
 */
export const loginResultSchema = userSchema.extend({ default_password: z.boolean(), require_password_change: z.boolean() });
export type LoginResult = z.infer<typeof loginResultSchema>;

/** PUT /api/user/self: profile fields, or a password change that needs the current password. */
export const updateSelfBodySchema = z
  .object({
    username: username.optional(),
    display_name: displayName.optional(),
    password: z.union([z.literal(''), password]).optional(),
    original_password: z.string().max(128).optional(),
  })
  .refine((body) => !body.password || Boolean(body.original_password), {
    message: msg('self.original_password_required'),
    path: ['original_password'],
  });
export type UpdateSelfBody = z.infer<typeof updateSelfBodySchema>;

/** POST /api/user/ (admin): username and password cannot be empty. */
export const createUserBodySchema = z.object({
  username: newUsername(msg('users.credentials_required')),
  password: z.string().min(1, msg('users.credentials_required')).pipe(password),
  display_name: displayName.optional(),
  /** Only the roles the product knows (an odd level would pass admin checks yet never be demotable); below the creator's own. */
  role: z.union([z.literal(Role.Common), z.literal(Role.Admin), z.literal(Role.Root)], { error: msg('users.role_invalid') }).optional(),
});
export type CreateUserBody = z.infer<typeof createUserBodySchema>;

const adminQuota = (field: string) =>
  z
    .number()
    .int(msg('users.amount_not_integer', { field }))
    .min(-1e15, msg('users.amount_too_small', { field }))
    .max(1e15, msg('users.amount_too_large', { field }));

/**
 * PUT /api/user/ (admin): user fields plus id, and optionally a quota change (owned by billing,
 * applied there before the profile, so a refusal changes nothing). The console sends the quota
 * only when the admin changed it: a typed balance as `quota` with the balance it replaced as
 * `expected_quota`, the "add quota" dialog as `quota_delta`.
 */
export const updateUserBodySchema = z
  .object({
    id: idSchema.pipe(z.number()),
    username: username.optional(),
    display_name: displayName.optional(),
    password: z.union([z.literal(''), password]).optional(),
    group: z.string().trim().min(1).max(64).optional(),
    email: z.union([z.literal(''), email]).optional(),
    /** The user's own usage limits; an empty object removes them. */
    rate_limits: rateLimitsSchema.optional(),
    /**
     * The new balance, never negative (money is taken away with `quota_delta`). Without
     * `expected_quota` it is set whatever the balance is (the established product's clients and
     * scripts, which fund users this way); with it, only if unchanged.
     */
    quota: adminQuota('quota').min(0, msg('users.quota_negative')).optional(),
    /** The balance the admin saw when typing `quota`: refused ("the balance changed since you loaded it") when it moved since. */
    expected_quota: adminQuota('expected_quota').optional(),
    /**
     * A signed amount added to the balance as it is when applied (the "add quota" dialog); not with
     * `quota`. Billing refuses a negative one that would take the balance below 0.
     */
    quota_delta: adminQuota('quota_delta').optional(),
  })
  .superRefine((body, context) => {
    if (body.quota_delta !== undefined && body.quota !== undefined) {
      context.addIssue({ code: 'custom', path: ['quota_delta'], message: msg('users.quota_delta_with_quota') });
    }
    if (body.expected_quota !== undefined && body.quota === undefined) {
      context.addIssue({ code: 'custom', path: ['expected_quota'], message: msg('users.expected_quota_alone') });
    }
  });
export type UpdateUserBody = z.infer<typeof updateUserBodySchema>;

/** POST /api/user/manage. */
export const manageUserBodySchema = z.object({
  id: idSchema,
  action: z.enum(manageActions),
});
export type ManageUserBody = z.infer<typeof manageUserBodySchema>;

/** The answer of /api/user/manage: the row takes these. */
export const manageUserResultSchema = z.object({ role: z.number().int(), status: z.number().int() });
export type ManageUserResult = z.infer<typeof manageUserResultSchema>;

/** GET /api/user/search. */
export const userSearchQuerySchema = z.object({
  keyword: z.string().trim().max(64).default(''),
  group: z.string().trim().max(64).default(''),
});
export type UserSearchQuery = z.infer<typeof userSearchQuerySchema>;

/** GET /api/user/self/groups: the groups the caller may pick for a token, with description and price ratio. */
export const usableGroupsSchema = z.record(z.string(), z.object({ desc: z.string(), ratio: z.number() }));
export type UsableGroups = z.infer<typeof usableGroupsSchema>;

/** POST /api/user/reset: completes a password reset. */
export const passwordResetBodySchema = z.object({
  email,
  token: z.string().trim().min(1).max(128),
});
export type PasswordResetBody = z.infer<typeof passwordResetBodySchema>;

/** The human check of register, login and the mails, where the server asks for one: `?turnstile=<token>`. */
export const turnstileQuerySchema = z.object({ turnstile: z.string().optional() });
export type TurnstileQuery = z.infer<typeof turnstileQuerySchema>;

/** POST /api/oauth/wechat and /api/oauth/wechat/bind: the code the WeChat account's bot gave the user. */
export const wechatCodeBodySchema = z.object({ code: z.string().trim().min(1).max(256) });
export type WechatCodeBody = z.infer<typeof wechatCodeBodySchema>;

/** POST /api/verification and /api/reset_password (the human check, when on, comes as `?turnstile=`). */
export const emailBodySchema = z.object({ email });
export type EmailBody = z.infer<typeof emailBodySchema>;

/** POST /api/oauth/email/bind. */
export const emailBindBodySchema = z.object({
  email,
  code: z.string().trim().min(1, msg('self.email_code_required')).max(32),
});
export type EmailBindBody = z.infer<typeof emailBindBodySchema>;
