import { localizeMessage, type Locale } from '@aigw/contracts';
import { compileAllowList, compileDenyList, ipAllowed, parseAllowIps, type AllowIpsResult } from '../src/net/ip-allow.js';

/** A refusal's message as a caller in `locale` reads it. */
const worded = (result: AllowIpsResult, locale: Locale) => (result.ok ? '' : localizeMessage(result.message, locale));

describe('allowed IPs', () => {
  it('accepts IPv4 and IPv6 addresses and ranges, one per line or comma separated, deduplicated', () => {
    expect(parseAllowIps('')).toEqual({ ok: true, entries: [] });
    expect(parseAllowIps(' \n \n')).toEqual({ ok: true, entries: [] });
    expect(parseAllowIps('1.2.3.4\n10.0.0.0/8, 192.168.1.0/24\r\n2001:DB8::/32,::1\n1.2.3.4')).toEqual({
      ok: true,
      entries: ['1.2.3.4', '10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32', '::1'],
    });
    expect(parseAllowIps('0.0.0.0/0\n::/0')).toEqual({ ok: true, entries: ['0.0.0.0/0', '::/0'] });
  });

  it.each([
    'localhost',
    '1.2.3',
    '1.2.3.256',
    '01.2.3.4',
    '1.2.3.4/33',
    '::1/129',
    '1.2.3.4/',
    '1.2.3.4/-1',
    '1.2.3.4/8/8',
    '1.2.3.4/x',
    '2001:db8:::1',
    'fe80::1%eth0',
    '*',
    '10.0.0.*',
  ])('refuses %j naming the field', (bad) => {
    const result = parseAllowIps(`1.2.3.4\n${bad}`);
    expect(result.ok).toBe(false);
    expect(worded(result, 'en-US')).toMatch(/^allow_ips: ".*" is not an IP address or CIDR range$/);
  });

  it('matches addresses and ranges of both families', () => {
    const entries = ['1.2.3.4', '10.0.0.0/8', '2001:db8::/32', '::1'];
    expect(ipAllowed(entries, '1.2.3.4')).toBe(true);
    expect(ipAllowed(entries, '1.2.3.5')).toBe(false);
    expect(ipAllowed(entries, '10.255.0.1')).toBe(true);
    expect(ipAllowed(entries, '11.0.0.1')).toBe(false);
    expect(ipAllowed(entries, '2001:db8:ffff::1')).toBe(true);
    expect(ipAllowed(entries, '2001:db9::1')).toBe(false);
    expect(ipAllowed(entries, '::1')).toBe(true);
    expect(ipAllowed(entries, '::2')).toBe(false);
  });

  it('matches IPv4 rules for IPv4-mapped IPv6 clients', () => {
    expect(ipAllowed(['10.0.0.0/8'], '::ffff:10.1.2.3')).toBe(true);
    expect(ipAllowed(['1.2.3.4'], '::ffff:1.2.3.4')).toBe(true);
    expect(ipAllowed(['1.2.3.4'], '::ffff:1.2.3.5')).toBe(false);
  });

  it('allows everyone with an empty list and no one with a malformed client address', () => {
    expect(ipAllowed([], '8.8.8.8')).toBe(true);
    expect(ipAllowed(['8.8.8.8'], 'not-an-ip')).toBe(false);
    expect(ipAllowed(['8.8.8.8'], '')).toBe(false);
  });

  it('compiles once for many checks', () => {
    const allowed = compileAllowList(['192.168.0.0/16']);
    expect(['192.168.0.1', '192.168.255.255', '192.169.0.1'].map(allowed)).toEqual([true, true, false]);
  });

  it('names the list a bad entry is in', () => {
    expect(worded(parseAllowIps('10.0.0.0/8\nnope', 'deny_ips'), 'en-US')).toBe('deny_ips: "nope" is not an IP address or CIDR range');
    expect(worded(parseAllowIps('nope'), 'en-US')).toBe('allow_ips: "nope" is not an IP address or CIDR range');
    expect(worded(parseAllowIps('nope'), 'zh-CN')).toBe('allow_ips: "nope" 不是有效的 IP 地址或 CIDR 网段');
  });

  it('matches a deny list like an allow list, except that an empty one matches no one', () => {
    expect(['1.2.3.4', '::1', 'garbage'].map(compileDenyList([]))).toEqual([false, false, false]);
    const denied = compileDenyList(['203.0.113.0/24', '2001:db8:bad::/48']);
    expect(['203.0.113.9', '::ffff:203.0.113.9', '203.0.114.1', '2001:db8:bad::1', '2001:db8:bae::1', 'garbage'].map(denied)).toEqual([
      true,
      true,
      false,
      true,
      false,
      false,
    ]);
  });
});
