import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deriveKey, loadOrCreateSecret, openSecret, sealSecret } from '../src/secrets';

describe('secrets at rest', () => {
  const key = crypto.randomBytes(32);

  it('seals with AES-256-GCM and a fresh IV each time, and opens only with the same key, untampered', () => {
    const first = sealSecret('sk-upstream-secret', key);
    const second = sealSecret('sk-upstream-secret', key);
    expect(first).not.toEqual(second);
    expect(first).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(first).not.toContain('sk-upstream-secret');
    expect(openSecret(first, key)).toBe('sk-upstream-secret');
    expect(() => openSecret(first, crypto.randomBytes(32))).toThrow();
    const [iv, tag, data] = first.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => openSecret([iv, tag, flipped.toString('base64url')].join('.'), key)).toThrow();
    expect(() => openSecret('garbage', key)).toThrow(/malformed/);
  });

  it('derives distinct 32-byte keys per purpose', () => {
    expect(deriveKey('s'.repeat(40), 'a')).toHaveLength(32);
    expect(deriveKey('s'.repeat(40), 'a').equals(deriveKey('s'.repeat(40), 'b'))).toBe(false);
  });

  it('creates a data-dir secret once and keeps it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-secret-'));
    try {
      const first = loadOrCreateSecret(dir, 'token-key');
      expect(first.length).toBeGreaterThanOrEqual(40);
      expect(loadOrCreateSecret(dir, 'token-key')).toBe(first);
      expect((fs.statSync(path.join(dir, 'secrets', 'token-key')).mode & 0o777).toString(8)).toBe('600');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
