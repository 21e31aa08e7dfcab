import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipAllowed, parseAllowlistEntry } from '../../shared/domain/access/ip-allowlist.ts';

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((octets) => octets.join('.'));

describe('IP allowlist', () => {
  it('allows everything when empty', () => {
    expect(ipAllowed([], '8.8.8.8')).toBe(true);
    expect(ipAllowed([], undefined)).toBe(true);
  });

  it.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['192.168.1.0/24', '192.168.1.255', true],
    ['192.168.1.0/24', '192.168.2.0', false],
    ['192.168.1.7', '192.168.1.7', true],
    ['192.168.1.7', '192.168.1.8', false],
    ['192.168.1.7/32', '192.168.1.7', true],
    ['0.0.0.0/0', '203.0.113.9', true],
    ['172.16.0.0/12', '172.31.255.255', true],
    ['172.16.0.0/12', '172.32.0.0', false],
    ['10.0.0.0/8', '::ffff:10.1.2.3', true],
    ['10.0.0.0/8', '2001:db8::1', false],
  ])('%s against %s → %s', (entry, source, expected) => {
    expect(ipAllowed([entry], source)).toBe(expected);
  });

  it('parses addresses and ranges, rejecting anything else', () => {
    expect(parseAllowlistEntry(' 10.0.0.0/8 ')).toBe('10.0.0.0/8');
    expect(parseAllowlistEntry('1.2.3.4')).toBe('1.2.3.4');
    for (const bad of ['256.1.1.1', '1.2.3', '1.2.3.4/33', '1.2.3.4/', 'a.b.c.d', '01.2.3.4', '1.2.3.4/8/1', '::1']) {
      expect(parseAllowlistEntry(bad)).toBeUndefined();
    }
  });

  it('a /32 of any address admits exactly that address (property)', () => {
    fc.assert(
      fc.property(ipv4, ipv4, (a, b) => {
        expect(ipAllowed([`${a}/32`], b)).toBe(a === b);
        expect(parseAllowlistEntry(a)).toBe(a);
      }),
    );
  });

  it('a range admits an address iff their first prefix bits agree (property)', () => {
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 1, max: 32 }), (base, source, bits) => {
        const toBits = (ip: string) => ip.split('.').map((o) => Number(o).toString(2).padStart(8, '0')).join('');
        expect(ipAllowed([`${base}/${bits}`], source)).toBe(toBits(base).slice(0, bits) === toBits(source).slice(0, bits));
      }),
    );
  });
});
