import crypto from 'node:crypto';
import { hashKey, splitKeys } from '../src/domain/channel-key';

describe('channel keys at rest', () => {
  it('hashes the trimmed key', () => {
    expect(hashKey(' abc \n')).toBe(crypto.createHash('sha256').update('abc').digest('hex'));
  });

  it('splits a batch into distinct non-blank lines, but keeps a JSON key whole', () => {
    expect(splitKeys('k1\r\n\n  k2 \nk1\n')).toEqual(['k1', 'k2']);
    expect(splitKeys('{\n  "type": "service_account",\n  "private_key": "x"\n}')).toHaveLength(1);
  });
});
