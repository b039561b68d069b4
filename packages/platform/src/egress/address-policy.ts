import { isIPv4, isIPv6 } from 'node:net';

/** Why an address was refused: the registry block it falls in and a name an admin understands. */
export interface BlockedRange {
  cidr: string;
  label: string;
}

interface Range extends BlockedRange {
  base: bigint;
  prefix: number;
}

// The IANA special-purpose registries (RFC 6890 and successors), not just "private": each of
// these has been used to reach something internal (0.0.0.0 -> own localhost in new-api
// GHSA-v5c3, 169.254.169.254 -> cloud metadata, 100.64/10 -> provider-internal networks).
const IPV4_RANGES = ranges(4, [
  ['0.0.0.0/8', 'this-network (0.0.0.0 reaches the host itself)'],
  ['10.0.0.0/8', 'private network (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata lives at 169.254.169.254)'],
  ['172.16.0.0/12', 'private network (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private network (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
]);

const IPV6_RANGES = ranges(6, [
  ['::/128', 'unspecified address (reaches the host itself)'],
  ['::1/128', 'loopback'],
  // Deprecated IPv4-compatible form (::a.b.c.d); not in the brief's list, but it has no
  // legitimate use and some stacks still map it onto IPv4.
  ['::/96', 'IPv4-compatible IPv6 (deprecated)'],
  ['64:ff9b::/96', 'NAT64 (would reach an embedded IPv4 address)'],
  ['100::/64', 'discard-only'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['fc00::/7', 'unique local (private network)'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
]);

const IPV4_MAPPED: Range = ranges(6, [['::ffff:0:0/96', 'IPv4-mapped']])[0]!;

/**
 * The special-purpose range an IP literal falls in, or undefined when it is an ordinary public
 * address. IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged by its embedded IPv4 address, because the
 * kernel connects it over IPv4. Anything that is not an IP literal is refused as well: callers
 * only pass addresses that the URL parser or the resolver produced.
 */
export function classifyAddress(address: string): BlockedRange | undefined {
  if (isIPv4(address)) return match(IPV4_RANGES, parseIPv4(address), 32);
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // brackets, zone id
  if (!isIPv6(bare)) return { cidr: address, label: 'not an IP address' };
  const value = parseIPv6(bare);
  if (inRange(value, IPV4_MAPPED, 128)) {
    const embedded = match(IPV4_RANGES, value & 0xffff_ffffn, 32);
    return embedded && { cidr: `::ffff:${embedded.cidr}`, label: `IPv4-mapped ${embedded.label}` };
  }
  return match(IPV6_RANGES, value, 128);
}

function match(table: Range[], value: bigint, width: number): BlockedRange | undefined {
  const hit = table.find((range) => inRange(value, range, width));
  return hit && { cidr: hit.cidr, label: hit.label };
}

function inRange(value: bigint, range: Range, width: number): boolean {
  const shift = BigInt(width - range.prefix);
  return value >> shift === range.base >> shift;
}

function ranges(version: 4 | 6, table: Array<[string, string]>): Range[] {
  return table.map(([cidr, label]) => {
    const [network, prefix] = cidr.split('/') as [string, string];
    return { cidr, label, prefix: Number(prefix), base: version === 4 ? parseIPv4(network) : parseIPv6(network) };
  });
}

function parseIPv4(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Expects a valid IPv6 literal (checked with isIPv6), possibly ending in a dotted IPv4 part. */
function parseIPv6(address: string): bigint {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)];
  return all.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}
