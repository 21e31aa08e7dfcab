import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wallTime } from '../../shared/model/local-time.ts';
import { inQuietHours, shiftOutOfQuietHours } from '../../shared/domain/dunning/quiet-hours.ts';

const berlin = (start: number, end: number) => ({ enabled: true, start_hour: start, end_hour: end, timezone: 'Europe/Berlin' });

describe('quiet hours', () => {
  it.each([
    // [due (UTC), window, expected]
    ['2026-11-21T21:30:00Z', berlin(21, 8), '2026-11-22T07:00:00.000Z'], // 22:30 Berlin, wraps midnight → 08:00 next day
    ['2026-11-21T05:00:00Z', berlin(21, 8), '2026-11-21T07:00:00.000Z'], // 06:00 Berlin → 08:00 same day
    ['2026-11-21T10:00:00Z', berlin(21, 8), '2026-11-21T10:00:00.000Z'], // 11:00 Berlin: not quiet
    ['2026-11-21T12:30:00Z', berlin(12, 14), '2026-11-21T13:00:00.000Z'], // 13:30 Berlin in a daytime window → 14:00
    ['2026-03-28T22:00:00Z', berlin(22, 8), '2026-03-29T06:00:00.000Z'], // 23:00 CET; 08:00 next day is CEST (UTC+2)
    ['2026-10-24T21:30:00Z', berlin(23, 8), '2026-10-25T07:00:00.000Z'], // 23:30 CEST; 08:00 next day is CET (UTC+1)
    ['2026-03-29T00:30:00Z', berlin(1, 2), '2026-03-29T01:00:00.000Z'], // 01:30 CET; 02:00 is skipped by DST → 03:00 CEST
  ])('%s → %s', (due, window, expected) => {
    expect(shiftOutOfQuietHours(new Date(due), window).toISOString()).toBe(expected);
  });

  it('leaves everything alone when disabled or empty', () => {
    const at = new Date('2026-11-21T23:00:00Z');
    expect(shiftOutOfQuietHours(at, { ...berlin(21, 8), enabled: false })).toBe(at);
    expect(shiftOutOfQuietHours(at, berlin(9, 9))).toBe(at);
  });

  it('waits for the next end when the DST jump skips the end hour onto the start hour', () => {
    const window = { enabled: true, start_hour: 3, end_hour: 2, timezone: 'America/New_York' };
    // 03:00 EST on 7 March 2026; on the 8th 02:00 does not exist and 03:00 EDT opens the window again.
    const shifted = shiftOutOfQuietHours(new Date('2026-03-07T08:00:00.000Z'), window);
    expect(shifted.toISOString()).toBe('2026-03-09T06:00:00.000Z');
    expect(inQuietHours(shifted, window)).toBe(false);
  });

  it('always lands outside the window, never earlier, within a day or, across such a jump, two (property)', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Santiago'];
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(...zones),
        (at, start, end, timezone) => {
          const window = { enabled: true, start_hour: start, end_hour: end, timezone };
          const shifted = shiftOutOfQuietHours(at, window);
          expect(shifted.getTime()).toBeGreaterThanOrEqual(at.getTime());
          // A day on whose DST jump the window closes and reopens at once adds a day.
          expect(shifted.getTime() - at.getTime()).toBeLessThanOrEqual(49 * 3600_000);
          expect(inQuietHours(shifted, window)).toBe(false);
          if (shifted !== at) expect(wallTime(shifted, timezone).hour).toBeGreaterThanOrEqual(end);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('wall-clock times across DST', () => {
  it('resolves a repeated hour to its first occurrence and moves a skipped one forward by the gap', async () => {
    const { atWallTime } = await import('../../shared/model/local-time.ts');
    expect(atWallTime('Europe/Berlin', 2026, 10, 25, 2, 30).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(atWallTime('Europe/Berlin', 2026, 3, 29, 2, 30).toISOString()).toBe('2026-03-29T01:30:00.000Z'); // 03:30 CEST
    expect(atWallTime('America/New_York', 2026, 11, 1, 1, 30).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(atWallTime('Asia/Kolkata', 2026, 6, 1, 9, 0).toISOString()).toBe('2026-06-01T03:30:00.000Z');
  });
});
