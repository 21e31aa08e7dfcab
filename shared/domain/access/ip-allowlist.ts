/** IPv4 allowlists (§5 rule 5): entries are addresses or CIDR ranges; an empty list allows every address. */

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

function toNumber(address: string): number | undefined {
  if (!IPV4.test(address)) return undefined;
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** Returns the canonical entry, or undefined when it is not an IPv4 address or CIDR range. */
export function parseAllowlistEntry(entry: string): string | undefined {
  const [address, bits, ...rest] = entry.trim().split('/');
  if (rest.length > 0 || address === undefined || toNumber(address) === undefined) return undefined;
  if (bits === undefined) return address;
  if (!/^(3[0-2]|[12]?\d)$/.test(bits)) return undefined;
  return `${address}/${bits}`;
}

/** IPv4-mapped IPv6 sources (::ffff:a.b.c.d) are compared as the IPv4 address they carry. */
function sourceAsIpv4(sourceIp: string): number | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(sourceIp);
  return toNumber(mapped ? mapped[1]! : sourceIp);
}

export function ipAllowed(allowlist: readonly string[], sourceIp: string | undefined): boolean {
  if (allowlist.length === 0) return true;
  const source = sourceIp === undefined ? undefined : sourceAsIpv4(sourceIp);
  if (source === undefined) return false;
  return allowlist.some((entry) => {
    const [address, bits] = entry.split('/');
    const base = toNumber(address!);
    if (base === undefined) return false;
    const prefix = bits === undefined ? 32 : Number(bits);
    // Shifting by 32 is a no-op in JS, so a /0 range is handled as "matches everything".
    if (prefix === 0) return true;
    const mask = (~0 << (32 - prefix)) >>> 0;
    return ((source & mask) >>> 0) === ((base & mask) >>> 0);
  });
}
