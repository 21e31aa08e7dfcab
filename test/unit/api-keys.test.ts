import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, parseKeyShape, scopeSatisfied } from '../../shared/model/api-key.ts';
import { newId } from '../../shared/ids.ts';

describe('API key shapes (§5)', () => {
  it('reads environment and kind from the prefix', () => {
    expect(parseKeyShape(generateKey('secret', 'live'))).toEqual({ kind: 'secret', environment: 'live' });
    expect(parseKeyShape(generateKey('secret', 'test'))).toEqual({ kind: 'secret', environment: 'test' });
    expect(parseKeyShape(generateKey('publishable', 'test'))).toEqual({ kind: 'publishable' });
  });

  it('rejects anything that is not exactly prefix + 32 base62 characters (property)', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const shape = parseKeyShape(raw);
        if (shape) expect(raw).toMatch(/^svc_(live|test|pub)_[0-9A-Za-z]{32}$/);
      }),
    );
    expect(parseKeyShape(`${generateKey('secret', 'test')} `)).toBeUndefined();
  });

  it('generates distinct keys and stable hashes', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKey('secret', 'test')));
    expect(keys.size).toBe(200);
    const key = generateKey('secret', 'live');
    expect(hashKey(key)).toBe(hashKey(key));
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('scope rules', () => {
  it.each([
    [['admin'], ['write'], true],
    [['admin'], ['webhooks'], true],
    [['write'], ['read'], true],
    [['read'], ['write'], false],
    [['analytics'], ['read', 'analytics'], true],
    [['read'], ['read', 'analytics'], true],
    [['webhooks'], ['read'], false],
    [['widget'], ['read'], false],
    [['widget'], 'any', true],
  ] as const)('%j satisfies %j → %s', (granted, required, expected) => {
    expect(scopeSatisfied(granted, required)).toBe(expected);
  });
});

describe('ids', () => {
  it('carry the prefix and sort by creation time', () => {
    const earlier = newId('pay', new Date('2026-01-01T00:00:00Z'));
    const later = newId('pay', new Date('2026-01-01T00:00:01Z'));
    expect(earlier).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(earlier < later).toBe(true);
  });
});
