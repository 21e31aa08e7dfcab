import { isIP } from 'node:net';

/**
 * Which IP addresses an outbound webhook may reach (SSRF protection). Only globally routable unicast
 * addresses are `public`; everything else is named by why it is refused. Anything that does not parse
 * as an address is refused too (fail closed).
 */
export type AddressClass =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'documentation'
  | 'reserved';

type Range4 = readonly [base: string, bits: number, cls: Exclude<AddressClass, 'public' | 'invalid'>];

/** IANA special-purpose IPv4 registry, minus the globally reachable entries. */
const IPV4_RANGES: readonly Range4[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

const ipv4Ranges = IPV4_RANGES.map(([base, bits, cls]) => ({ base: parseIpv4(base)!, size: 2 ** (32 - bits), cls }));

function classifyIpv4Number(value: number): AddressClass {
  for (const range of ipv4Ranges) {
    if (value >= range.base && value < range.base + range.size) return range.cls;
  }
  return 'public';
}

/** Eight 16-bit groups, or undefined. Accepts `::` compression and a trailing dotted IPv4. */
function parseIpv6(text: string): number[] | undefined {
  let rest = text;
  const lastColon = rest.lastIndexOf(':');
  if (rest.slice(lastColon + 1).includes('.')) {
    // "…:a.b.c.d" → "…:hhhh:hhhh"
    const v4 = parseIpv4(rest.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    rest = `${rest.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const after = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !after) return undefined;
  const explicit = head.length + after.length;
  if (halves.length === 2) {
    if (explicit > 7) return undefined;
    return [...head, ...new Array<number>(8 - explicit).fill(0), ...after];
  }
  return explicit === 8 ? head : undefined;
}

function classifyIpv6Groups(g: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const embeddedV4 = g6 * 65536 + g7;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped): the socket would reach the IPv4 address, so judge that.
  if (zeroTo(5) && g5 === 0xffff) return classifyIpv4Number(embeddedV4);
  // ::a.b.c.d (deprecated IPv4-compatible) and ::ffff:0:a.b.c.d (SIIT) never route publicly.
  if (zeroTo(6) || (zeroTo(4) && g4 === 0xffff && g5 === 0)) return 'reserved';
  // 64:ff9b::/96 (NAT64 well-known prefix) translates to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyIpv4Number(embeddedV4);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'reserved'; // 64:ff9b:1::/48 local-use NAT64
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xffc0) === 0xfec0) return 'reserved'; // deprecated site-local
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation';
  if (g0 === 0x3fff && g1 < 0x1000) return 'documentation'; // 3fff::/20
  // 2001::/23 IETF protocol assignments (Teredo, ORCHID, benchmarking…), 2002::/16 6to4: tunnels and special uses.
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved';
  if (g0 === 0x2002) return 'reserved';
  // Only 2000::/3 is allocated as global unicast; the rest of the space is reserved.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** Classifies an IP address literal (IPv4, IPv6, with or without brackets or a zone id). */
export function classifyAddress(address: string): AddressClass {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 4) {
    const value = parseIpv4(text);
    return value === undefined ? 'invalid' : classifyIpv4Number(value);
  }
  if (family === 6) {
    const groups = parseIpv6(text);
    return groups ? classifyIpv6Groups(groups) : 'invalid';
  }
  return 'invalid';
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address) === 'public';

/** Host names that always mean this machine or its network, refused before any DNS lookup. */
export function isLocalHostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal');
}

/**
 * A host name of one label (`intranet`, `metadata`) is resolved through the search domains of
 * whatever network makes the call, so it names a different machine wherever it is called from:
 * never a public endpoint. IP literals are judged by classifyAddress instead.
 */
export function isSingleLabelHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return classifyAddress(host) === 'invalid' && !host.replace(/\.$/, '').includes('.');
}

/**
 * Whether a URL is written as it will be called: exactly its WHATWG normal form, or that form
 * without the `/` of an empty path. Anything else (`https:///h` read as `https://h/`, a backslash
 * for a slash, a tab dropped inside the host, `0x7f.1` for 127.0.0.1, an upper-case host) means a
 * reader of the text and the HTTP client would disagree about where it goes.
 */
export function writtenAsCalled(raw: string, url: URL): boolean {
  if (url.href === raw) return true;
  return url.pathname === '/' && url.search === '' && url.hash === '' && url.href === `${raw}/`;
}
