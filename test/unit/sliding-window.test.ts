import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countInWindow,
  describeWindow,
  expiredSeconds,
  secondOf,
  secondsUntilAdmitted,
  type SecondCounts,
} from '../../shared/model/sliding-window.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0) + 250;
const WINDOW_MS = 60_000;

/** What the table keeps for these arrivals: a count per second. */
function countsOf(arrivals: readonly number[]): SecondCounts {
  const counts = new Map<number, number>();
  for (const at of arrivals) counts.set(secondOf(at), (counts.get(secondOf(at)) ?? 0) + 1);
  return counts;
}

/** What an exact log would hold at `now`. */
const exactlyInWindow = (arrivals: readonly number[], now: number) => arrivals.filter((at) => at > now - WINDOW_MS).length;

const arrivals = fc.array(fc.integer({ min: NOW - 120_000, max: NOW }), { maxLength: 60 });

describe('sliding window counted per second', () => {
  it('counts the seconds of the last 60 s, the current one included', () => {
    const counts = countsOf([NOW - 61_000, NOW - 60_200, NOW - 59_000, NOW - 1_000, NOW]);
    // NOW - 60.2 s fell in the second that ended 59.25 s ago: still counted, where an exact log would have let it go.
    expect(countInWindow(counts, NOW)).toBe(4);
    expect(describeWindow(counts, 5, NOW)).toEqual({ limit: 5, remaining: 1, resetAt: secondOf(NOW - 60_200) + 61 });
    expect(expiredSeconds(counts, NOW)).toEqual([[secondOf(NOW - 61_000), 1]]);
  });

  it('says when the next slot frees up', () => {
    const counts = countsOf([NOW - 50_000, NOW - 40_000, NOW - 40_000, NOW - 10_000]);
    // The second of NOW - 50 s began 50.25 s ago and leaves the window 10.75 s from now; the two
    // requests of NOW - 40 s leave together, 20.75 s from now.
    expect(secondsUntilAdmitted(counts, 4, NOW)).toBe(11);
    expect(secondsUntilAdmitted(counts, 3, NOW)).toBe(21);
    expect(secondsUntilAdmitted(counts, 2, NOW)).toBe(21);
    expect(secondsUntilAdmitted(counts, 1, NOW)).toBe(51);
    expect(secondsUntilAdmitted(counts, 5, NOW)).toBe(0);
  });

  it('never lets a request go earlier than an exact log would, nor hold it more than a second longer (property)', () => {
    fc.assert(
      fc.property(arrivals, fc.integer({ min: NOW - 1_000, max: NOW + 120_000 }), (log, now) => {
        const held = countInWindow(countsOf(log), now);
        expect(held).toBeGreaterThanOrEqual(exactlyInWindow(log, now));
        expect(held).toBeLessThanOrEqual(exactlyInWindow(log, now - 1_000));
      }),
    );
  });

  it('reports what is left, and a wait after which one more fits and before which none does (property)', () => {
    fc.assert(
      fc.property(arrivals, fc.integer({ min: 1, max: 30 }), (log, limit) => {
        const counts = countsOf(log);
        const held = countInWindow(counts, NOW);
        const state = describeWindow(counts, limit, NOW);
        expect(state.remaining).toBe(Math.max(0, limit - held));
        expect(state.resetAt * 1000).toBeGreaterThan(NOW);
        expect(state.resetAt * 1000).toBeLessThanOrEqual(NOW + 61_000);
        const wait = secondsUntilAdmitted(counts, limit, NOW);
        if (held < limit) {
          expect(wait).toBe(0);
          return;
        }
        expect(wait).toBeGreaterThanOrEqual(1);
        expect(wait).toBeLessThanOrEqual(61);
        expect(countInWindow(counts, NOW + wait * 1000)).toBeLessThan(limit);
        if (wait > 1) expect(countInWindow(counts, NOW + (wait - 1) * 1000)).toBeGreaterThanOrEqual(limit);
      }),
    );
  });
});
