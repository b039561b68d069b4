import { z } from 'zod';
import { msg } from './messages/index.js';

/**
 * Two-factor sign-in (TOTP with backup codes), passkeys (WebAuthn) and the step-up before
 * secrets (`POST /api/verify`), on the established product's routes and shapes.
 */

/** A 6-digit authenticator code, or a backup code (`XXXX-XXXX`); spaces and dashes are ignored. */
export const twoFactorCodeSchema = z.string().trim().min(1).max(32);

/** Bodies of POST /api/user/2fa/{enable,disable,backup_codes} and /api/user/login/2fa. */
export const twoFactorCodeBodySchema = z.object({ code: twoFactorCodeSchema });
export type TwoFactorCodeBody = z.infer<typeof twoFactorCodeBodySchema>;

/** The login answer of a user with 2FA: no session yet, the client sends the code to /api/user/login/2fa. */
export const twoFactorChallengeSchema = z.object({ require_2fa: z.literal(true) });
export type TwoFactorChallenge = z.infer<typeof twoFactorChallengeSchema>;

/** GET /api/user/2fa/status. `locked`: too many wrong codes lately, wait before trying again. */
export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  locked: z.boolean(),
  /** Unused backup codes; only when enabled. */
  backup_codes_remaining: z.number().int().optional(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

/** POST /api/user/2fa/setup: the secret (for manual entry), the otpauth:// URI for the QR code, and the backup codes (shown once). */
export const twoFactorSetupSchema = z.object({
  secret: z.string(),
  qr_code_data: z.string(),
  backup_codes: z.array(z.string()),
});
export type TwoFactorSetup = z.infer<typeof twoFactorSetupSchema>;

/** The answer of POST /api/user/2fa/backup_codes: new backup codes (shown once; the previous ones stop working). */
export const backupCodesSchema = twoFactorSetupSchema.pick({ backup_codes: true });
export type BackupCodes = z.infer<typeof backupCodesSchema>;

/** GET /api/user/2fa/stats (admin). */
export const twoFactorStatsSchema = z.object({
  total_users: z.number().int(),
  enabled_users: z.number().int(),
  passkey_users: z.number().int(),
});
export type TwoFactorStats = z.infer<typeof twoFactorStatsSchema>;

/** One passkey of the caller, as GET /api/user/passkey lists it (the public key never leaves). */
export const passkeyViewSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** Seconds since epoch. */
  created_at: z.number().int(),
  last_used_at: z.number().int().nullable(),
  backed_up: z.boolean(),
});
export type PasskeyView = z.infer<typeof passkeyViewSchema>;

/** GET /api/user/passkey: the established `{enabled, last_used_at}`, plus the list. */
export const passkeyStatusSchema = z.object({
  enabled: z.boolean(),
  last_used_at: z.number().int().nullable(),
  passkeys: z.array(passkeyViewSchema),
});
export type PasskeyStatus = z.infer<typeof passkeyStatusSchema>;

const base64url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*$/, msg('passkey.base64url'));

/**
 * A WebAuthn answer as @simplewebauthn/browser returns it (registration or assertion). Bounded
 * and shaped here; the library verifies the content.
 */
export const webAuthnResponseSchema = z
  .object({
    id: base64url.min(1),
    rawId: base64url.min(1),
    type: z.literal('public-key'),
    response: z
      .object({
        clientDataJSON: base64url,
        attestationObject: base64url.optional(),
        authenticatorData: base64url.optional(),
        signature: base64url.optional(),
        userHandle: base64url.optional(),
        transports: z.array(z.string().max(32)).max(8).optional(),
        publicKeyAlgorithm: z.number().int().optional(),
        publicKey: base64url.optional(),
      })
      .loose(),
    authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();
export type WebAuthnResponse = z.infer<typeof webAuthnResponseSchema>;

/** POST /api/user/passkey/register/finish: the new credential and an optional name for the list. */
export const passkeyRegisterBodySchema = webAuthnResponseSchema.extend({
  name: z.string().trim().max(32).optional(),
});

/** The begin answers: `{options}` for navigator.credentials (as @simplewebauthn/browser takes them as `optionsJSON`). */
export const passkeyOptionsSchema = z.object({ options: z.record(z.string(), z.unknown()) });
export type PasskeyOptions = z.infer<typeof passkeyOptionsSchema>;

/**
 * POST /api/verify. `2fa` takes an authenticator or backup code; `passkey` takes the assertion
 * of /api/user/passkey/verify/begin's challenge: a bare claim (no assertion) is refused.
 */
export const verifyBodySchema = z.discriminatedUnion(
  'method',
  [z.object({ method: z.literal('2fa'), code: twoFactorCodeSchema }), z.object({ method: z.literal('passkey'), credential: webAuthnResponseSchema })],
  { error: (issue) => (issue.code === 'invalid_union' ? msg('validation.one_of', { values: '2fa, passkey' }) : undefined) },
);
export type VerifyBody = z.infer<typeof verifyBodySchema>;

/** The answer of a step-up: until when (seconds since epoch) sensitive actions are open to this session. */
export const verifyResultSchema = z.object({ verified: z.literal(true), expires_at: z.number().int() });
export type VerifyResult = z.infer<typeof verifyResultSchema>;

/** POST /api/channel/:id/key (root, after a step-up). */
export const channelKeySchema = z.object({ key: z.string() });
export type ChannelKey = z.infer<typeof channelKeySchema>;
