import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress, isSingleLabelHost, writtenAsCalled } from '../../shared/model/address-policy.ts';

const octet = fc.integer({ min: 0, max: 255 });
const v4 = (a: fc.Arbitrary<number>, b: fc.Arbitrary<number> = octet) => fc.tuple(a, b, octet, octet).map((parts) => parts.join('.'));
const hex = (n: number) => n.toString(16);
const group = fc.integer({ min: 0, max: 0xffff });
const v6 = (first: fc.Arbitrary<number>) => fc.tuple(first, fc.array(group, { minLength: 7, maxLength: 7 })).map(([g0, rest]) => [g0, ...rest].map(hex).join(':'));

/** IPv4 as the three textual forms of IPv4-mapped IPv6 the socket layer accepts. */
function mapped(address: string): string[] {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  return [`::ffff:${address}`, `::ffff:${hex(a * 256 + b)}:${hex(c * 256 + d)}`, `0:0:0:0:0:ffff:${address}`];
}

describe('classifyAddress (SSRF policy for outbound webhooks)', () => {
  it('refuses every private, loopback, link-local, CGNAT, multicast and reserved IPv4 range', () => {
    const refused: [fc.Arbitrary<string>, string][] = [
      [v4(fc.constant(10)), 'private'],
      [v4(fc.constant(127)), 'loopback'],
      [v4(fc.constant(169), fc.constant(254)), 'link_local'],
      [v4(fc.constant(172), fc.integer({ min: 16, max: 31 })), 'private'],
      [v4(fc.constant(192), fc.constant(168)), 'private'],
      [v4(fc.constant(100), fc.integer({ min: 64, max: 127 })), 'cgnat'],
      [v4(fc.integer({ min: 224, max: 239 })), 'multicast'],
      [v4(fc.integer({ min: 240, max: 255 })), 'reserved'],
      [v4(fc.constant(0)), 'unspecified'],
    ];
    for (const [addresses, cls] of refused) {
      fc.assert(fc.property(addresses, (address) => classifyAddress(address) === cls));
    }
  });

  it('judges an IPv4-mapped IPv6 address exactly as the IPv4 address it maps to', () => {
    fc.assert(
      fc.property(v4(octet), (address) => mapped(address).every((form) => classifyAddress(form) === classifyAddress(address))),
    );
  });

  it('refuses IPv6 loopback, unspecified, unique-local, link-local and multicast; NAT64 follows the embedded IPv4', () => {
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('::')).toBe('unspecified');
    expect(classifyAddress('64:ff9b::10.0.0.1')).toBe('private');
    expect(classifyAddress('64:ff9b::8.8.8.8')).toBe('public');
    expect(classifyAddress('2001:db8::1')).toBe('documentation');
    expect(classifyAddress('fe80::1%eth0')).toBe('link_local');
    fc.assert(fc.property(v6(fc.integer({ min: 0xfc00, max: 0xfdff })), (address) => classifyAddress(address) === 'unique_local'));
    fc.assert(fc.property(v6(fc.integer({ min: 0xfe80, max: 0xfebf })), (address) => classifyAddress(address) === 'link_local'));
    fc.assert(fc.property(v6(fc.integer({ min: 0xff00, max: 0xffff })), (address) => classifyAddress(address) === 'multicast'));
    // Outside 2000::/3 nothing is global unicast.
    fc.assert(fc.property(v6(fc.integer({ min: 0x4000, max: 0xfbff })), (address) => !isPublicAddress(address)));
  });

  it('accepts ordinary global unicast addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e']) {
      expect(classifyAddress(address), address).toBe('public');
    }
    fc.assert(fc.property(v6(fc.integer({ min: 0x2400, max: 0x3ffe })), (address) => isPublicAddress(address)));
  });

  it('fails closed on anything that is not an address', () => {
    fc.assert(fc.property(fc.string(), (text) => isPublicAddress(text) === (classifyAddress(text) === 'public')));
    for (const text of ['', 'example.com', '010.0.0.1', '1.2.3', '::ffff:999.1.1.1', '1::2::3', '0x7f.0.0.1', '2130706433']) {
      expect(isPublicAddress(text), text).toBe(false);
    }
  });
});

describe('how a live webhook URL must be written', () => {
  const judged = (raw: string) => writtenAsCalled(raw, new URL(raw));

  it('accepts any URL in its normal form, and a bare host without the trailing slash', () => {
    fc.assert(fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (raw) => writtenAsCalled(new URL(raw).href, new URL(raw))));
    for (const raw of ['https://hooks.example.com/recovery', 'https://example.com', 'https://example.com/', 'https://example.com:8443/a?b=c', 'https://[2606:4700::1]/h']) {
      expect(judged(raw), raw).toBe(true);
    }
  });

  it('refuses text that a reader and the HTTP client would take to different places', () => {
    const ambiguous = [
      'https:///h', // stored as https://h/ before
      'https:/h/x',
      'https:\\\\h.example.com\\x',
      'https://ex\tample.com/x',
      'https://0x7f.1/x',
      'https://Example.com/x',
      'HTTPS://example.com/x',
      'https://example.com:443/x',
      'https://example.com/a b',
      'https://example.com/a/../b',
      'https://example.com?x=1',
      ' https://example.com/x',
    ];
    for (const raw of ambiguous) expect(judged(raw), JSON.stringify(raw)).toBe(false);
  });

  it('knows a single-label host from a qualified name or an address', () => {
    for (const host of ['intranet', 'metadata', 'h', 'printer.']) expect(isSingleLabelHost(host), host).toBe(true);
    for (const host of ['example.com', 'hooks.example.com.', '8.8.8.8', '[2606:4700::1]', '2606:4700::1']) expect(isSingleLabelHost(host), host).toBe(false);
  });
});
