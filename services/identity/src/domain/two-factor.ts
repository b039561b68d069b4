import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { randomString } from './secrets.js';

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app reads it) and backup codes.
 * Pure functions: no database, no Fastify. A code is accepted for the step it belongs to, one
 * step either side (clock drift); the caller stores the last step used, so a code cannot be
 * used twice within its window.
 */

const PERIOD_SECONDS = 30;

/** A fresh 160-bit secret in base32, as authenticator apps take it. */
export function generateTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });
}

/** The otpauth:// URI the QR code carries. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totp(secret, issuer, account).toString();
}

/** The current code (tests, and nothing else, need to compute one). */
export function totpCode(secret: string, timestampMs = Date.now()): string {
  return totp(secret).generate({ timestamp: timestampMs });
}

/** A code is six digits once spaces are taken out. */
export function isTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s+/g, ''));
}

/** The time step `code` belongs to (now, or one step either side), or null when it matches none. */
export function matchTotpStep(secret: string, code: string, timestampMs = Date.now()): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const generator = totp(secret);
  const delta = generator.validate({ token, timestamp: timestampMs, window: 1 });
  return delta === null ? null : generator.counter({ timestamp: timestampMs }) + delta;
}

/** Backup codes per set: each works once. */
export const BACKUP_CODE_COUNT = 10;
const backupAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A set of backup codes as shown to the user (`XXXX-XXXX`, no look-alike characters). */
export function generateBackupCodes(count = BACKUP_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const code = randomString(8, backupAlphabet);
    return `${code.slice(0, 4)}-${code.slice(4)}`;
  });
}

/** What a typed backup code is compared as: upper case, without spaces and dashes. */
export function normalizeBackupCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]+/g, '');
}

/**
 * How a backup code is stored: HMAC-SHA256 under a key derived from the service secret, so a
 * copy of the database alone does not let anyone try the 40-bit codes offline.
 */
export function hashBackupCode(code: string, key: Buffer): string {
  return crypto.createHmac('sha256', key).update(normalizeBackupCode(code)).digest('hex');
}
