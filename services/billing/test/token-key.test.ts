import crypto from 'node:crypto';
import { parseSkKey } from '@aigw/contracts';
import { generateKey, hashKey, maskKey, randomAlphanumeric, visibleChars } from '../src/domain/token-key.js';

describe('token keys', () => {
  it('generates 48 alphanumeric characters, different every time', () => {
    const keys = new Set(Array.from({ length: 200 }, generateKey));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('draws every character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const char of randomAlphanumeric(62 * 2000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 2000 each (sd ≈ 45); plain `byte % 62` would give 8 characters 5/256 odds, about 2420.
    for (const count of counts.values()) expect(Math.abs(count - 2000)).toBeLessThan(250);
  });

  it('hashes the key without sk- as sha256 hex', () => {
    const key = generateKey();
    expect(hashKey(key)).toBe(crypto.createHash('sha256').update(key).digest('hex'));
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('masks from the first and last four characters', () => {
    const key = `abcd${'x'.repeat(40)}wxyz`;
    expect(visibleChars(key)).toBe('abcdwxyz');
    expect(maskKey(visibleChars(key))).toBe('sk-abcd**********wxyz');
  });

  it('parses keys as clients send them', () => {
    const key = generateKey();
    expect(parseSkKey(`sk-${key}`)).toEqual({ key });
    expect(parseSkKey(key)).toEqual({ key });
    expect(parseSkKey(`Bearer sk-${key}`)).toEqual({ key });
    expect(parseSkKey(`bearer  sk-${key} `)).toEqual({ key });
    expect(parseSkKey(`sk-${key}-42`)).toEqual({ key, channelId: 42 });
    expect(parseSkKey(`Bearer ${key}-7`)).toEqual({ key, channelId: 7 });
  });

  it('refuses anything that is not a key', () => {
    const key = generateKey();
    for (const bad of [
      '',
      'sk-',
      'Bearer ',
      `sk-${key.slice(1)}`,
      `sk-${key}x`,
      `sk-${key}-`,
      `sk-${key}-0`,
      `sk-${key}-abc`,
      `sk-${key}-1-2`,
      `sk-${key.slice(0, 47)}_`,
      `sk-sk-${key}`,
      `${key} OR 1=1`,
    ]) {
      expect(parseSkKey(bad)).toBeNull();
    }
  });
});
