import net from 'node:net';
import { msg } from '@aigw/contracts';

/**
 * A token's allowed and denied client addresses (`allow_ips`, `deny_ips`): one IP or CIDR range
 * per line (commas and spaces are tolerated), IPv4 and IPv6. Billing validates and normalises the
 * text when a token is saved; the relay checks each request with `ipAllowed` and the compiled
 * lists. Pure: no Fastify, no database.
 */

export type AllowIpsResult = { ok: true; entries: string[] } | { ok: false; message: string };

/** Guards the parser against huge lists; the field is already bounded to 4096 characters. */
export const MAX_ALLOW_IP_ENTRIES = 256;

/**
 * Splits, validates and deduplicates; an empty text means every address is allowed (or, for a
 * deny list, none is refused). `field` names the list in the error message (the field, then a `msg(id)`).
 */
export function parseAllowIps(text: string, field: 'allow_ips' | 'deny_ips' = 'allow_ips'): AllowIpsResult {
  const entries: string[] = [];
  for (const raw of text.split(/[\s,]+/)) {
    if (!raw) continue;
    const entry = normaliseEntry(raw);
    if (!entry) return { ok: false, message: `${field}: ${msg('platform.ip_entry_invalid', { entry: raw.slice(0, 64) })}` };
    if (!entries.includes(entry)) entries.push(entry);
  }
  if (entries.length > MAX_ALLOW_IP_ENTRIES)
    return { ok: false, message: `${field}: ${msg('platform.ip_entries_max', { max: String(MAX_ALLOW_IP_ENTRIES) })}` };
  return { ok: true, entries };
}

/** `1.2.3.4`, `10.0.0.0/8`, `2001:db8::/32` in a canonical spelling, or null when invalid. */
function normaliseEntry(raw: string): string | null {
  const [address, prefix, extra] = raw.split('/');
  if (extra !== undefined || !address || address.includes('%')) return null; // zone ids mean nothing for remote clients
  const family = net.isIP(address);
  if (family === 0) return null;
  const canonical = canonicalAddress(address, family);
  if (prefix === undefined) return canonical;
  if (!/^\d{1,3}$/.test(prefix)) return null;
  const bits = Number(prefix);
  if (bits > (family === 4 ? 32 : 128)) return null;
  return `${canonical}/${bits}`;
}

function canonicalAddress(address: string, family: number): string {
  return family === 4 ? address : new net.SocketAddress({ address, family: 'ipv6' }).address;
}

/**
 * True when `ip` is in one of the entries; an empty list allows everything. IPv4 rules also
 * match IPv4-mapped IPv6 clients (`::ffff:10.0.0.1`), which dual-stack sockets report.
 */
export function ipAllowed(entries: readonly string[], ip: string): boolean {
  if (entries.length === 0) return true;
  return compileAllowList(entries)(ip);
}

/** A reusable matcher (the relay compiles once per cached token). Invalid entries are skipped. */
export function compileAllowList(entries: readonly string[]): (ip: string) => boolean {
  if (entries.length === 0) return () => true;
  return compileIpList(entries);
}

/** A deny list's matcher: true when `ip` is in one of the entries; an empty list matches nothing. */
export function compileDenyList(entries: readonly string[]): (ip: string) => boolean {
  if (entries.length === 0) return () => false;
  return compileIpList(entries);
}

function compileIpList(entries: readonly string[]): (ip: string) => boolean {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = net.isIP(address ?? '');
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(prefix), type);
  }
  return (ip) => {
    const family = net.isIP(ip);
    if (family === 0) return false;
    return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };
}
