import { isIPv4, isIPv6 } from 'node:net';

/**
 * The block of addresses one client holds, for counting what it does (the operators' sign-in guard,
 * src/operator-sign-in.ts): an IPv4 address is its own; an IPv6 address stands for its /64, the
 * smallest network a provider hands one customer, inside which a client may pick any of 2^64 addresses.
 * An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket reports it) is IPv4.
 */
export function addressBlock(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  const unzoned = address.replace(/%.*$/, '');
  if (isIPv4(unzoned) || !isIPv6(unzoned)) return unzoned;
  const groups = ipv6Groups(unzoned.toLowerCase());
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const split = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group];
          // An IPv4 tail (`64:ff9b::192.0.2.1`) is the last two groups.
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const [head = '', tail] = address.split('::');
  const first = split(head);
  const last = tail === undefined ? [] : split(tail);
  const zeros = Array<string>(8 - first.length - last.length).fill('0');
  return [...first, ...zeros, ...last].map((group) => Number.parseInt(group, 16).toString(16));
}
