import { isIP } from 'node:net';

/**
 * The client a per-address limit counts: an IPv4 address as it is (an IPv4-mapped IPv6 form too),
 * an IPv6 address by its /64, the block one subscriber gets, since a client can hand itself any of
 * the 2^64 addresses in it.
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  const [head, tail] = ip.toLowerCase().split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
