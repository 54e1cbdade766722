import { isIP } from 'node:net';

/** Why an address is not one the proxy fetches from on a client's say-so. */
export type RefusedAddressKind = 'loopback' | 'private' | 'link-local' | 'unique-local' | 'CGNAT' | 'multicast' | 'unspecified' | 'reserved';

/** IPv4 ranges refused, as [first address, prefix length, kind]. */
const IPV4_REFUSED: readonly (readonly [string, number, RefusedAddressKind])[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'CGNAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function ipv4Kind(address: string): RefusedAddressKind | undefined {
  const n = ipv4Number(address);
  for (const [first, prefix, kind] of IPV4_REFUSED) {
    const size = 2 ** (32 - prefix);
    const start = ipv4Number(first);
    if (n >= start && n < start + size) return kind;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad and a zone id allowed). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.split('%')[0] ?? '';
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = ipv4Number(quad[1] ?? '');
    text = `${text.slice(0, quad.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':').map((g) => Number.parseInt(g, 16)));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const groups = halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const ipv4Of = (high: number, low: number) => `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`;

function ipv6Kind(address: string): RefusedAddressKind | undefined {
  const g = ipv6Groups(address);
  if (g === undefined) return 'reserved';
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d): the IPv4 address inside decides.
  if (upperZero && (g5 === 0xffff || g5 === 0)) return ipv4Kind(ipv4Of(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(ipv4Of(g6, g7));
  // 6to4 (2002:AABB:CCDD::/48) carries an IPv4 address in its second and third groups.
  if (g0 === 0x2002) return ipv4Kind(ipv4Of(g1, g2));
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved';
  if (g0 === 0x2001 && g1 === 0xdb8) return 'reserved';
  return undefined;
}

/**
 * Why the proxy refuses to connect to `address` (an IP address, IPv4 or IPv6, brackets allowed) on
 * a client's say-so, or undefined for a public unicast address. Anything that is not an IP
 * address is refused as reserved: only addresses are judged here, names are resolved first.
 */
export function refusedAddressKind(address: string): RefusedAddressKind | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const version = isIP(bare.split('%')[0] ?? '');
  if (version === 4) return ipv4Kind(bare);
  if (version === 6) return ipv6Kind(bare);
  return 'reserved';
}
