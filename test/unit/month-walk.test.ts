import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, monthStart, nextMonthStart, walkMonths, type WindowPiece } from '../../shared/model/month-walk.ts';

const HOUR_MS = 3_600_000;
/** Late 2027 to early 2029: two year ends and 29 February 2028. */
const FIRST = Date.parse('2027-11-01T00:00:00Z');
const LAST = Date.parse('2029-03-01T00:00:00Z');
const MONTHS = Array.from({ length: 16 }, (_, i) => new Date(Date.UTC(2027, 10 + i, 1)).toISOString().slice(0, 7));

/** Instants near the boundaries the walk cuts at (month, day and part starts), and anywhere. */
const instant = fc.oneof(
  fc.integer({ min: FIRST - 40 * DAY_MS, max: LAST + 40 * DAY_MS }),
  fc.tuple(fc.constantFrom(...MONTHS), fc.integer({ min: -2 * HOUR_MS, max: 2 * HOUR_MS })).map(([month, by]) => monthStart(month) + by),
  fc.tuple(fc.constantFrom('2028-02-28', '2028-02-29', '2028-03-01', '2027-12-31', '2028-12-31'), fc.integer({ min: 0, max: DAY_MS })).map(([day, by]) => Date.parse(`${day}T00:00:00Z`) + by),
);
const window = fc.record({ from: fc.option(instant, { nil: undefined }), to: fc.option(instant, { nil: undefined }) }, { requiredKeys: [] });
const held = fc.subarray(MONTHS, { minLength: 1 });
const partMs = fc.constantFrom(DAY_MS, 6 * HOUR_MS, HOUR_MS, 8 * HOUR_MS);

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** What the walk must cover: the window clipped to the held months' span, less the months not held. */
function expectedSpans(months: readonly string[], { from, to }: { from?: number; to?: number }): [number, number][] {
  return [...months]
    .sort()
    .map((month): [number, number] => [Math.max(monthStart(month), from ?? -Infinity), Math.min(nextMonthStart(month), to ?? Infinity)])
    .filter(([start, end]) => start < end);
}

/** Adjacent pieces joined into the spans they cover. */
function coveredSpans(pieces: readonly WindowPiece[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const { from, to } of pieces) {
    const last = spans.at(-1);
    if (last && last[1] === from && monthOf(last[0]) === monthOf(from)) last[1] = to;
    else spans.push([from, to]);
  }
  return spans;
}

const fits = (start: number, end: number, { from, to }: { from?: number; to?: number }) => start >= (from ?? -Infinity) && end <= (to ?? Infinity);

describe('walking a window through months, days and parts of days', () => {
  it('covers the window within the held months exactly, in order, without overlap', () => {
    fc.assert(
      fc.property(held, window, partMs, (months, w, part) => {
        const pieces = walkMonths(months, w, part);
        for (const piece of pieces) {
          expect(piece.from).toBeLessThan(piece.to);
          expect(monthOf(piece.from)).toBe(piece.month);
          expect(monthOf(piece.to - 1)).toBe(piece.month);
        }
        for (const [i, piece] of pieces.entries()) if (i > 0) expect(piece.from).toBeGreaterThanOrEqual(pieces[i - 1]!.to);
        expect(coveredSpans(pieces)).toEqual(expectedSpans(months, w));
      }),
    );
  });

  it('uses the largest whole unit wherever one fits: months, then days, then parts, cutting only the rest', () => {
    fc.assert(
      fc.property(held, window, partMs, (months, w, part) => {
        const pieces = walkMonths(months, w, part);
        for (const month of months) {
          if (fits(monthStart(month), nextMonthStart(month), w)) expect(pieces).toContainEqual({ from: monthStart(month), to: nextMonthStart(month), month, unit: 'month' });
        }
        for (const piece of pieces) {
          const size = piece.to - piece.from;
          if (piece.unit === 'month') expect([piece.from, piece.to]).toEqual([monthStart(piece.month), nextMonthStart(piece.month)]);
          if (piece.unit === 'day') {
            expect(size).toBe(DAY_MS);
            expect(piece.from % DAY_MS).toBe(0);
            expect(fits(monthStart(piece.month), nextMonthStart(piece.month), w)).toBe(false);
          }
          if (piece.unit === 'part') {
            expect(size).toBe(part);
            expect(piece.from % part).toBe(0);
            expect(part).toBeLessThan(DAY_MS);
            const day = Math.floor(piece.from / DAY_MS) * DAY_MS;
            expect(fits(day, day + DAY_MS, w)).toBe(false);
          }
          if (piece.unit === 'cut') {
            const start = Math.floor(piece.from / part) * part;
            expect(piece.to).toBeLessThanOrEqual(start + part);
            expect(size).toBeLessThan(part);
            expect(piece.from === w.from || piece.to === w.to).toBe(true);
          }
        }
        expect(pieces.filter((piece) => piece.unit === 'cut').length).toBeLessThanOrEqual(2);
      }),
    );
  });

  it('walks a leap February and a year end as whole months, or by day and part where the window cuts them', () => {
    const window = { from: Date.parse('2028-02-29T07:30:00Z'), to: Date.parse('2029-01-01T13:00:00Z') };
    const pieces = walkMonths(['2028-12', '2029-01', '2028-02', '2028-03'], window, 6 * HOUR_MS);
    expect(pieces.map(({ unit, from, to }) => `${unit} ${new Date(from).toISOString()} ${new Date(to).toISOString()}`)).toEqual([
      'cut 2028-02-29T07:30:00.000Z 2028-02-29T12:00:00.000Z',
      'part 2028-02-29T12:00:00.000Z 2028-02-29T18:00:00.000Z',
      'part 2028-02-29T18:00:00.000Z 2028-03-01T00:00:00.000Z',
      'month 2028-03-01T00:00:00.000Z 2028-04-01T00:00:00.000Z',
      'month 2028-12-01T00:00:00.000Z 2029-01-01T00:00:00.000Z',
      'part 2029-01-01T00:00:00.000Z 2029-01-01T06:00:00.000Z',
      'part 2029-01-01T06:00:00.000Z 2029-01-01T12:00:00.000Z',
      'cut 2029-01-01T12:00:00.000Z 2029-01-01T13:00:00.000Z',
    ]);
    expect(walkMonths([], window, DAY_MS)).toEqual([]);
  });
});
