import { signTelegramFields } from './support/telegram';
import { verifyTelegramAuth } from '../src/domain/telegram';

const token = '123456:TEST-bot-token';
const now = 1_800_000_000;

describe('verifyTelegramAuth', () => {
  const fields = signTelegramFields({ id: '42', first_name: 'Ann', username: 'ann', auth_date: String(now - 10) }, token);

  it('accepts a fresh, correctly signed answer; the console-added lang is not signed', () => {
    expect(verifyTelegramAuth(fields, token, now)).toBe(true);
    expect(verifyTelegramAuth({ ...fields, lang: 'en' }, token, now)).toBe(true);
  });

  it('refuses a changed field, another bot, an old answer and a missing token', () => {
    expect(verifyTelegramAuth({ ...fields, id: '43' }, token, now)).toBe(false);
    expect(verifyTelegramAuth(fields, '999:other', now)).toBe(false);
    expect(verifyTelegramAuth(fields, token, now + 2 * 24 * 3600)).toBe(false);
    expect(verifyTelegramAuth(fields, '', now)).toBe(false);
    expect(verifyTelegramAuth({ ...fields, hash: 'zz' }, token, now)).toBe(false);
  });
});
