import net from 'node:net';

/**
 * Whether a listen address (the HOST setting) is reachable only from this machine: `localhost`,
 * 127.0.0.0/8, `::1` and its IPv4-mapped form. Anything else (`0.0.0.0`, `::`, an interface
 * address, a host name) is reachable from elsewhere (rule R8).
 */
export function isLoopbackHost(host: string): boolean {
  const value = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (value === 'localhost') return true;
  if (net.isIPv4(value)) return value.startsWith('127.');
  if (net.isIPv6(value)) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(value);
    if (mapped) return mapped[1]!.startsWith('127.');
    return value === '::1' || value === '0:0:0:0:0:0:0:1';
  }
  return false;
}
