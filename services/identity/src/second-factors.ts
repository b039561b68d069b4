import { IsNull, LessThan, type DataSource } from 'typeorm';
import { msg, type TwoFactorSetup } from '@aigw/contracts';
import { openSecret, sealSecret, TooManyRequestsError, UserError, type Kv } from '@aigw/platform';
import { BackupCodeEntity, TwoFactorEntity } from './entities/two-factor.entity.js';
import { PasskeyEntity } from './entities/passkey.entity.js';
import { generateBackupCodes, generateTotpSecret, hashBackupCode, isTotpCode, matchTotpStep, normalizeBackupCode, totpUri } from './domain/two-factor.js';

/** Wrong second-factor codes a user may send per window before being told to wait. */
export const CODE_ATTEMPTS_MAX = 5;
export const CODE_ATTEMPTS_WINDOW_MS = 5 * 60_000;

/** How a code was accepted. */
export type CodeKind = 'totp' | 'backup';

/**
 * Users' second factors: the TOTP secret (sealed at rest), its backup codes (HMACs, each good
 * once) and whether a user has passkeys. Every code check goes through `verifyCode`, which
 * counts attempts per user (rule: the second step is rate limited per user, whoever sends it).
 */
export interface SecondFactorStore {
  /** Enabled TOTP and the unused backup codes. */
  status(userId: number): Promise<{ enabled: boolean; backupCodesRemaining: number; locked: boolean }>;
  totpEnabled(userId: number): Promise<boolean>;
  /** A TOTP second factor or at least one passkey: what a step-up can be made with. */
  hasAny(userId: number): Promise<boolean>;
  /** Starts (or restarts) a setup: a new secret and backup codes, not in force until `enable`. */
  beginSetup(userId: number, issuer: string, account: string): Promise<TwoFactorSetup>;
  /** Puts a started setup in force with its first code. */
  enable(userId: number, code: string): Promise<void>;
  /** Checks a code of an enabled second factor (backup codes when `backup`); the code is spent. */
  verifyCode(userId: number, code: string, options: { backup: boolean }): Promise<CodeKind>;
  /** A new set of backup codes; the old ones stop working. */
  replaceBackupCodes(userId: number): Promise<string[]>;
  /** Removes TOTP and backup codes; true when there was anything to remove. */
  disable(userId: number): Promise<boolean>;
  stats(): Promise<{ enabledUsers: number; passkeyUsers: number }>;
}

const wrongCode = msg('two_factor.wrong_code');

export function createSecondFactorStore(db: DataSource, kv: Kv, key: { seal: Buffer; hash: Buffer }): SecondFactorStore {
  const factors = db.getRepository(TwoFactorEntity);
  const codes = db.getRepository(BackupCodeEntity);
  const passkeys = db.getRepository(PasskeyEntity);
  const attemptsKey = (userId: number) => `identity:2fa-attempts:${userId}`;

  /** Counts one attempt; refused past the limit. A success clears the count. */
  const countAttempt = async (userId: number) => {
    if ((await kv.increment(attemptsKey(userId), { ttlMs: CODE_ATTEMPTS_WINDOW_MS })) > CODE_ATTEMPTS_MAX) {
      throw new TooManyRequestsError(msg('two_factor.too_many_attempts'));
    }
  };

  /** Accepts a TOTP code once: the conditional update claims its time step. */
  const claimTotp = async (row: TwoFactorEntity, code: string, enabled: boolean): Promise<boolean> => {
    const step = matchTotpStep(openSecret(row.secret_sealed, key.seal), code);
    if (step === null) return false;
    const result = await factors.update({ user_id: row.user_id, enabled, last_step: LessThan(step) }, { last_step: step });
    return (result.affected ?? 0) === 1;
  };

  const claimBackup = async (userId: number, code: string): Promise<boolean> => {
    if (normalizeBackupCode(code).length !== 8) return false;
    const found = await codes.findOneBy({ user_id: userId, code_hash: hashBackupCode(code, key.hash), used_at: IsNull() });
    if (!found) return false;
    const result = await codes.update({ id: found.id, used_at: IsNull() }, { used_at: Date.now() });
    return (result.affected ?? 0) === 1;
  };

  const storeBackupCodes = async (manager: DataSource['manager'], userId: number, fresh: string[]) => {
    await manager.delete(BackupCodeEntity, { user_id: userId });
    await manager.insert(
      BackupCodeEntity,
      fresh.map((code) => ({ user_id: userId, code_hash: hashBackupCode(code, key.hash), used_at: null })),
    );
  };

  return {
    async status(userId) {
      const row = await factors.findOneBy({ user_id: userId });
      const enabled = row?.enabled === true;
      const backupCodesRemaining = enabled ? await codes.countBy({ user_id: userId, used_at: IsNull() }) : 0;
      const attempts = Number((await kv.get(attemptsKey(userId))) ?? 0);
      return { enabled, backupCodesRemaining, locked: attempts >= CODE_ATTEMPTS_MAX };
    },
    async totpEnabled(userId) {
      return await factors.existsBy({ user_id: userId, enabled: true });
    },
    async hasAny(userId) {
      return (await factors.existsBy({ user_id: userId, enabled: true })) || (await passkeys.existsBy({ user_id: userId }));
    },
    async beginSetup(userId, issuer, account) {
      if (await factors.existsBy({ user_id: userId, enabled: true })) {
        throw new UserError(msg('two_factor.already_enabled_setup'));
      }
      const secret = generateTotpSecret();
      const backupCodes = generateBackupCodes();
      await db.transaction(async (manager) => {
        await manager.delete(TwoFactorEntity, { user_id: userId });
        await manager.insert(TwoFactorEntity, {
          user_id: userId,
          secret_sealed: sealSecret(secret, key.seal),
          enabled: false,
          last_step: 0,
          created_at: Date.now(),
        });
        await storeBackupCodes(manager, userId, backupCodes);
      });
      return { secret, qr_code_data: totpUri(secret, issuer, account), backup_codes: backupCodes };
    },
    async enable(userId, code) {
      const row = await factors.findOneBy({ user_id: userId });
      if (!row) throw new UserError(msg('two_factor.setup_first'));
      if (row.enabled) throw new UserError(msg('two_factor.already_enabled'));
      if (!isTotpCode(code)) throw new UserError(`code: ${msg('two_factor.code_format')}`);
      await countAttempt(userId);
      if (!(await claimTotp(row, code, false))) throw new UserError(wrongCode);
      await kv.delete(attemptsKey(userId));
      const result = await factors.update({ user_id: userId, enabled: false }, { enabled: true });
      if ((result.affected ?? 0) !== 1) throw new UserError(msg('two_factor.already_enabled'));
    },
    async verifyCode(userId, code, options) {
      const row = await factors.findOneBy({ user_id: userId, enabled: true });
      if (!row) throw new UserError(msg('two_factor.not_enabled'));
      await countAttempt(userId);
      let kind: CodeKind | null = null;
      if (isTotpCode(code)) kind = (await claimTotp(row, code, true)) ? 'totp' : null;
      else if (options.backup) kind = (await claimBackup(userId, code)) ? 'backup' : null;
      if (!kind) throw new UserError(wrongCode);
      await kv.delete(attemptsKey(userId));
      return kind;
    },
    async replaceBackupCodes(userId) {
      const fresh = generateBackupCodes();
      await db.transaction((manager) => storeBackupCodes(manager, userId, fresh));
      return fresh;
    },
    async disable(userId) {
      return db.transaction(async (manager) => {
        const removed = await manager.delete(TwoFactorEntity, { user_id: userId, enabled: true });
        if ((removed.affected ?? 0) === 0) return false;
        await manager.delete(BackupCodeEntity, { user_id: userId });
        return true;
      });
    },
    async stats() {
      const enabledUsers = await factors.countBy({ enabled: true });
      const passkeyUsers = Number(
        (await passkeys.createQueryBuilder('passkey').select('COUNT(DISTINCT passkey.user_id)', 'count').getRawOne<{ count: string | number }>())?.count ?? 0,
      );
      return { enabledUsers, passkeyUsers };
    },
  };
}
