import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_COUNTERS } from '../../shared/model/campaign.ts';
import { enrollmentTotals } from '../../shared/model/enrollment.ts';

describe("a campaign's enrollment totals from its counters", () => {
  it('gives every status its count when the counters account for every enrollment', () => {
    expect(enrollmentTotals(EMPTY_COUNTERS)).toEqual({ active: 0, completed: 0, stopped: 0, removed: 0 });
    expect(enrollmentTotals({ enrolled_count: 9, active_count: 2, completed_count: 3, stopped_count: 3, removed_count: 1 })).toEqual({
      active: 2,
      completed: 3,
      stopped: 3,
      removed: 1,
    });
  });

  it('gives nothing for a campaign from before ended enrollments were counted, so the index is counted instead', () => {
    expect(enrollmentTotals({ enrolled_count: 5, active_count: 2 })).toBeUndefined();
    // Every enrollment still running: the missing counters are zeros, and the totals are right.
    expect(enrollmentTotals({ enrolled_count: 2, active_count: 2 })).toEqual({ active: 2, completed: 0, stopped: 0, removed: 0 });
  });

  it('never hands out totals that do not add up to the enrolled count (property)', () => {
    const count = fc.nat({ max: 1_000 });
    fc.assert(
      fc.property(count, count, fc.option(count, { nil: undefined }), fc.option(count, { nil: undefined }), fc.option(count, { nil: undefined }), (enrolled, active, completed, stopped, removed) => {
        const totals = enrollmentTotals({ enrolled_count: enrolled, active_count: active, completed_count: completed, stopped_count: stopped, removed_count: removed });
        if (totals) expect(totals.active + totals.completed + totals.stopped + totals.removed).toBe(enrolled);
        else expect(active + (completed ?? 0) + (stopped ?? 0) + (removed ?? 0)).not.toBe(enrolled);
      }),
    );
  });
});
