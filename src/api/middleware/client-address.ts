import { isIPv6 } from 'node:net';

/**
 * Who a request without a key counts as for the per-address limits (docs/api.md, "Limits"): its address as
 * Express gives it after TRUST_PROXY, an IPv6 address by its /64, since one client is usually handed a
 * whole /64 and could otherwise take a fresh address for every request. An IPv4 address mapped into IPv6
 * is the IPv4 address.
 */
export function addressBlock(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped?.[1]) return mapped[1];
  const [head = '', tail] = address.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  // A dotted IPv4 tail stands for two groups.
  const backGroups = back.length + (back.at(-1)?.includes('.') ? 1 : 0);
  const groups =
    tail === undefined ? front : [...front, ...Array(8 - front.length - backGroups).fill('0'), ...back];
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
