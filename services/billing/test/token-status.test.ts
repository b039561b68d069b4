import { msg, TokenStatus } from '@aigw/contracts';
import { canEnable, effectiveStatus } from '../src/domain/token-status.js';

const now = 1_700_000_000;
const token = (fields: Partial<Parameters<typeof effectiveStatus>[0]> = {}) => ({
  status: TokenStatus.Enabled,
  expired_time: -1,
  unlimited_quota: false,
  remain_quota: 100,
  ...fields,
});

describe('token status', () => {
  it.each([
    ['enabled, never expires', token(), TokenStatus.Enabled],
    ['expires later', token({ expired_time: now + 1 }), TokenStatus.Enabled],
    ['expires right now', token({ expired_time: now }), TokenStatus.Expired],
    ['expired', token({ expired_time: now - 60 }), TokenStatus.Expired],
    ['no quota left', token({ remain_quota: 0 }), TokenStatus.Exhausted],
    ['overdrawn', token({ remain_quota: -5 }), TokenStatus.Exhausted],
    ['unlimited with no quota', token({ unlimited_quota: true, remain_quota: 0 }), TokenStatus.Enabled],
    ['expired and exhausted: expiry first', token({ expired_time: now - 1, remain_quota: 0 }), TokenStatus.Expired],
    ['disabled wins over expired', token({ status: TokenStatus.Disabled, expired_time: now - 1 }), TokenStatus.Disabled],
    ['disabled wins over exhausted', token({ status: TokenStatus.Disabled, remain_quota: 0 }), TokenStatus.Disabled],
  ])('%s', (_name, fields, expected) => {
    expect(effectiveStatus(fields, now)).toBe(expected);
  });

  it('refuses to enable an expired or exhausted token, naming the reason', () => {
    expect(canEnable(token(), now)).toEqual({ allowed: true });
    expect(canEnable(token({ status: TokenStatus.Disabled }), now)).toEqual({ allowed: true });
    expect(canEnable(token({ unlimited_quota: true, remain_quota: 0 }), now)).toEqual({ allowed: true });
    expect(canEnable(token({ status: TokenStatus.Disabled, expired_time: now - 1 }), now)).toEqual({
      allowed: false,
      message: `status: ${msg('tokens.expired_cannot_enable')}`,
    });
    expect(canEnable(token({ status: TokenStatus.Disabled, remain_quota: 0 }), now)).toEqual({
      allowed: false,
      message: `status: ${msg('tokens.exhausted_cannot_enable')}`,
    });
  });
});
