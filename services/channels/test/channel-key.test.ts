import crypto from 'node:crypto';
import { decryptKey, encryptKey, hashKey, splitKeys } from '../src/domain/channel-key';

describe('channel keys at rest', () => {
  const secret = crypto.randomBytes(32);

  it('round-trips through AES-256-GCM with a fresh IV each time', () => {
    const first = encryptKey('sk-upstream-secret', secret);
    const second = encryptKey('sk-upstream-secret', secret);
    expect(first).not.toEqual(second);
    expect(first).not.toContain('sk-upstream-secret');
    expect(decryptKey(first, secret)).toBe('sk-upstream-secret');
  });

  it('refuses a tampered value or another secret', () => {
    const stored = encryptKey('sk-upstream-secret', secret);
    const [iv, tag, data] = stored.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => decryptKey([iv, tag, flipped.toString('base64url')].join('.'), secret)).toThrow();
    expect(() => decryptKey(stored, crypto.randomBytes(32))).toThrow();
    expect(() => decryptKey('not-a-key', secret)).toThrow('malformed');
  });

  it('hashes the trimmed key', () => {
    expect(hashKey(' abc \n')).toBe(crypto.createHash('sha256').update('abc').digest('hex'));
  });

  it('splits a batch into distinct non-blank lines, but keeps a JSON key whole', () => {
    expect(splitKeys('k1\r\n\n  k2 \nk1\n')).toEqual(['k1', 'k2']);
    expect(splitKeys('{\n  "type": "service_account",\n  "private_key": "x"\n}')).toHaveLength(1);
  });
});
