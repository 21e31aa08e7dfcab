import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Bucket } from '../../shared/store/list-counters.ts';
import { countPlace, monthCounts, PART_HOURS, SearchCounts } from '../../shared/store/search-counts.ts';

const START = Date.parse('2026-10-27T00:00:00Z');
const SPAN = 45 * 86_400_000;

/** The month items the index changes would leave for customers created at these times (as searchCountItems builds them). */
function countsOf(times: readonly number[]): SearchCounts {
  const items = new Map<string, Record<string, number>>();
  for (const time of times) {
    const { month, part } = countPlace(time);
    const item = items.get(month) ?? { matches: 0 };
    item.matches! += 1;
    item[part] = (item[part] ?? 0) + 1;
    items.set(month, item);
  }
  return new SearchCounts(monthCounts([...items].map(([month, attributes]) => ({ month, attributes }))));
}

const exactly = (times: readonly number[]) => (from: number, to: number) => times.filter((time) => time >= from && time < to).length;

function expectExact(buckets: readonly Bucket[], times: readonly number[]) {
  for (const bucket of buckets) expect(bucket.count, JSON.stringify(bucket)).toBe(exactly(times)(bucket.from, bucket.to));
  for (const [i, bucket] of buckets.entries()) if (i > 0) expect(bucket.from).toBeGreaterThanOrEqual(buckets[i - 1]!.to);
}

const times = fc.array(fc.integer({ min: START, max: START + SPAN - 1 }), { maxLength: 120 });
const bound = fc.option(fc.integer({ min: START - 86_400_000, max: START + SPAN + 86_400_000 }), { nil: undefined });

describe('search prefix counts by month and quarter day', () => {
  it('cut any window into ordered buckets whose counts are exactly the customers created in them', async () => {
    await fc.assert(
      fc.asyncProperty(times, bound, bound, async (created, from, to) => {
        const buckets = await countsOf(created).buckets('matches', { from, to }, async (a, b) => exactly(created)(a, b));
        expectExact(buckets, created);
        const inWindow = created.filter((time) => (from === undefined || time >= from) && (to === undefined || time < to)).length;
        expect(buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(inWindow);
        expect(buckets.every((bucket) => bucket.count > 0)).toBe(true);
      }),
    );
  });

  it('split a month into its days and a day into quarters, exactly, and count every customer once in all', async () => {
    await fc.assert(
      fc.asyncProperty(times, async (created) => {
        const counts = countsOf(created);
        expect(await counts.allTime()).toBe(created.length);
        for (const month of await counts.buckets('matches', {}, async () => Number.NaN)) {
          expect(month.level).toBe('month');
          const days = await counts.splitMonth(month);
          expectExact(days, created);
          expect(days.reduce((sum, day) => sum + day.count, 0)).toBe(month.count);
          for (const day of days) {
            const quarters = await counts.splitDay(day);
            expectExact(quarters, created);
            expect(quarters.every((quarter) => quarter.to - quarter.from === PART_HOURS * 3_600_000)).toBe(true);
            expect(quarters.reduce((sum, quarter) => sum + quarter.count, 0)).toBe(day.count);
          }
        }
      }),
    );
  });

  it('counts a customer in the month and quarter of their creation, in UTC', () => {
    expect(countPlace(Date.parse('2026-11-30T23:59:59.999Z'))).toEqual({ month: '2026-11', part: '303' });
    expect(countPlace(Date.parse('2026-12-01T00:00:00Z'))).toEqual({ month: '2026-12', part: '010' });
    expect(countPlace(Date.parse('2026-12-09T11:59:00Z'))).toEqual({ month: '2026-12', part: '091' });
  });
});
