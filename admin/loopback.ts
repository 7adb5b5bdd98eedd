// Whether an address the admin server listens on is reachable from this machine only. A host name other
// than localhost counts as beyond loopback: it may resolve to anything.
import net from 'node:net';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}
