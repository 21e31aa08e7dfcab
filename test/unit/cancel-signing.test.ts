import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedSecrets, authHash, checkStartSignature, currentSecret, firstSigningSecrets, graceEndsAt, rolled } from '../../shared/domain/cancel-flows/cancel-signing.ts';
import { ServiceError } from '../../shared/model/errors.ts';

const NOW = new Date('2026-11-26T10:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const ids = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });

/** The code the signature check throws, or undefined when it admits the start. */
function refusal(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
}

describe('auth_hash (cancel-signing.ts)', () => {
  it('is the lowercase hex HMAC-SHA256 of "<customer>:<subscription>" as a merchant server computes it', () => {
    fc.assert(
      fc.property(ids, ids, (customer, subscription) => {
        const { secret } = currentSecret(firstSigningSecrets(NOW));
        const expected = createHmac('sha256', secret).update(`${customer}:${subscription}`).digest('hex');
        return authHash(secret, customer, subscription) === expected && /^[0-9a-f]{64}$/.test(expected);
      }),
    );
  });

  it('admits a start signed for exactly its ids and refuses any other pair, a missing hash in live mode only', () => {
    fc.assert(
      fc.property(ids, ids, ids, (customer, subscription, other) => {
        const record = firstSigningSecrets(NOW);
        const hash = authHash(currentSecret(record).secret, customer, subscription);
        const live = { environment: 'live' as const, customerId: customer, subscriptionId: subscription };
        expect(refusal(() => checkStartSignature({ ...live, authHash: hash }, record, NOW))).toBeUndefined();
        if (other !== subscription) expect(refusal(() => checkStartSignature({ ...live, subscriptionId: other, authHash: hash }, record, NOW))).toBe('invalid_signature');
        expect(refusal(() => checkStartSignature(live, record, NOW))).toBe('invalid_signature');
        expect(refusal(() => checkStartSignature({ ...live, environment: 'test' }, record, NOW))).toBeUndefined();
        expect(refusal(() => checkStartSignature({ ...live, authHash: hash }, undefined, NOW))).toBe('invalid_signature');
      }),
      { numRuns: 50 },
    );
  });
});

describe('rolling the secret', () => {
  it('keeps each rolled-out secret for its own 24 hours, and refuses a roll that would keep more than ten', () => {
    let record = firstSigningSecrets(NOW);
    const first = currentSecret(record).secret;
    for (let i = 1; i <= 9; i++) record = rolled(record, later(i * 60), 'in_24_hours');
    expect(acceptedSecrets(record, later(600)).map((entry) => entry.secret)).toContain(first);
    expect(acceptedSecrets(record, later(600))).toHaveLength(10);
    expect(() => rolled(record, later(700), 'in_24_hours')).toThrow(/rolled too often/);
    expect(graceEndsAt(record, later(600))).toBe(later(9 * 60 + 86_400).toISOString());
    // The first rolled out leaves when its own grace ends, the later ones after it.
    expect(acceptedSecrets(record, later(60 + 86_400)).map((entry) => entry.secret)).not.toContain(first);
    expect(acceptedSecrets(record, later(9 * 60 + 86_400))).toHaveLength(1);
    expect(graceEndsAt(record, later(9 * 60 + 86_400))).toBeNull();
  });

  it('with "now" keeps only the new secret, even when the grace list is full', () => {
    let record = firstSigningSecrets(NOW);
    for (let i = 1; i <= 9; i++) record = rolled(record, later(i), 'in_24_hours');
    const fresh = rolled(record, later(10), 'now');
    expect(acceptedSecrets(fresh, later(10))).toEqual([currentSecret(fresh)]);
    expect(fresh.version).toBe(record.version + 1);
    expect(currentSecret(fresh).secret).not.toBe(currentSecret(record).secret);
  });
});
