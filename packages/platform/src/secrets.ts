import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A secret kept in DATA_DIR/secrets/<name>, created on first use. For the all-in-one process
 * without configuration: restarts keep it, so data encrypted with it stays readable. Separate
 * processes must be given the same secret through their config instead.
 */
export function loadOrCreateSecret(dataDir: string, name: string, bytes = 32): string {
  const folder = path.join(dataDir, 'secrets');
  const file = path.join(folder, name);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(bytes).toString('base64url');
  try {
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}

/** A 32-byte key derived from a configured secret of any length. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return crypto.createHash('sha256').update(`${purpose}\n${secret}`).digest();
}
