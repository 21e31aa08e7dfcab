import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyticsWindow, DEFAULT_WINDOW_DAYS, MAX_RANGE_DAYS } from '../../shared/domain/analytics/recovery-analytics.ts';
import { ServiceError } from '../../shared/model/errors.ts';

const DAY_MS = 86_400_000;
const dayOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY_MS;

/** Any instant from 2000 to 2099, and a day within two years of it. */
const instant = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });
const nearbyDay = (now: Date) => fc.integer({ min: -800, max: 30 }).map((offset) => dayOf(now.getTime() + offset * DAY_MS));

describe('analytics window', () => {
  it('with no range is the last 30 days ending today, on the given clock (property)', () => {
    fc.assert(
      fc.property(instant, (now) => {
        const window = analyticsWindow({}, now);
        expect(window.to).toBe(now.toISOString().slice(0, 10));
        expect(daysBetween(window.from, window.to)).toBe(DEFAULT_WINDOW_DAYS);
        // The whole UTC days from 30 × 24 hours ago up to now.
        expect(Date.parse(window.from)).toBeLessThanOrEqual(now.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
      }),
    );
  });

  it('fills only the end left out: from is 30 days before a given to, to is today after a given from (property)', () => {
    fc.assert(
      fc.property(
        instant.chain((now) => fc.tuple(fc.constant(now), nearbyDay(now))),
        ([now, given]) => {
          expect(analyticsWindow({ to: given }, now)).toEqual({ from: dayOf(Date.parse(given) - DEFAULT_WINDOW_DAYS * DAY_MS), to: given });
          const today = dayOf(now.getTime());
          const span = daysBetween(given, today) + 1;
          if (given > today) expect(() => analyticsWindow({ from: given }, now)).toThrow(ServiceError);
          else if (span > MAX_RANGE_DAYS.day) expect(() => analyticsWindow({ from: given }, now)).toThrow('at most 366 days');
          else expect(analyticsWindow({ from: given }, now)).toEqual({ from: given, to: today });
        },
      ),
    );
  });

  it('keeps what is sent, and names from when a defaulted to makes the range too long', () => {
    const now = new Date('2026-11-26T10:00:00Z');
    expect(analyticsWindow({ from: '2026-01-01', to: '2026-01-31' }, now)).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(analyticsWindow({ from: '2024-12-01', interval: 'month' }, now)).toEqual({ from: '2024-12-01', to: '2026-11-26' });
    try {
      analyticsWindow({ from: '2025-01-01' }, now);
      expect.unreachable('a range of 695 days with interval=day');
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request', param: 'from', message: 'The range may span at most 366 days' });
    }
  });
});
