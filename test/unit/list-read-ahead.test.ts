import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookAhead } from '../../shared/store/list-query.ts';

describe('lookAhead: entries a filtered read takes for the matches it wants', () => {
  it('reads at least the expected entries, half a deviation more at most, and more for more or rarer matches', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.double({ min: 1, max: 1000, noNaN: true }), (wanted, sparsity) => {
        const read = lookAhead(wanted, sparsity);
        const expected = wanted * sparsity;
        expect(read).toBeGreaterThanOrEqual(Math.ceil(expected - 1e-9));
        expect(read).toBeLessThanOrEqual(Math.ceil(expected + (sparsity * Math.sqrt(wanted)) / 2) + 1);
        expect(lookAhead(wanted + 1, sparsity)).toBeGreaterThanOrEqual(read);
        expect(lookAhead(wanted, sparsity * 2)).toBeGreaterThanOrEqual(read);
      }),
    );
  });

  it('reads exactly what is wanted when every entry matches, and never less for a ratio below one', () => {
    expect(lookAhead(20, 1)).toBe(20);
    expect(lookAhead(20, 0.5)).toBe(20);
  });
});
