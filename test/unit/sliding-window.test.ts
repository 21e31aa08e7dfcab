import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeWindow, secondsUntilAdmitted, windowCutoff } from '../../shared/domain/sliding-window.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('sliding window', () => {
  it('counts only requests inside the last 60 seconds', () => {
    const log = [NOW - 61_000, NOW - 60_000, NOW - 59_000, NOW - 1_000];
    expect(describeWindow(log, 5, NOW)).toEqual({ limit: 5, remaining: 3, resetAt: Math.ceil((NOW + 1_000) / 1000) });
  });

  it('says when the next slot frees up', () => {
    const log = [NOW - 50_000, NOW - 40_000, NOW - 10_000];
    expect(secondsUntilAdmitted(log, 3, NOW)).toBe(10);
    expect(secondsUntilAdmitted(log, 2, NOW)).toBe(20);
    expect(secondsUntilAdmitted(log, 4, NOW)).toBe(0);
  });

  it('never reports negative remaining, and a wait of at least one second when full (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: NOW - 120_000, max: NOW }), { maxLength: 50 }), fc.integer({ min: 1, max: 30 }), (log, limit) => {
        const state = describeWindow(log, limit, NOW);
        const inWindow = log.filter((at) => at > windowCutoff(NOW)).length;
        expect(state.remaining).toBe(Math.max(0, limit - inWindow));
        const wait = secondsUntilAdmitted(log, limit, NOW);
        if (inWindow >= limit) {
          expect(wait).toBeGreaterThanOrEqual(1);
          expect(wait).toBeLessThanOrEqual(60);
          // After waiting, enough entries have left the window.
          const later = NOW + wait * 1000;
          expect(log.filter((at) => at > windowCutoff(later)).length).toBeLessThan(limit);
        } else {
          expect(wait).toBe(0);
        }
      }),
    );
  });
});
