import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SIBLING_DEFERRALS, SIBLING_RECHECK_MINUTES, SIBLING_WAIT_MINUTES, siblingWait, type StepTurn } from '../../shared/model/enrollment.ts';

const at = (minutes: number): string => new Date(Date.UTC(2026, 10, 26, 12) + minutes * 60_000).toISOString();
const now = (minutes: number): Date => new Date(at(minutes));

describe('siblingWait', () => {
  it('waits for a sibling step due earlier, a recheck at a time, for at most the bound in deferrals', () => {
    // Prepare: this step due at 12:00:30, its sibling's at 12:00 and not run.
    const step: StepTurn = { id: 'enr_b', next_step_at: at(0.5) };
    const sibling: StepTurn = { id: 'enr_a', next_step_at: at(0) };

    // Assess: the bound is the hour in rechecks, however late the step runs (a day late, as after an outage).
    expect(SIBLING_DEFERRALS * SIBLING_RECHECK_MINUTES).toBe(SIBLING_WAIT_MINUTES);
    expect(siblingWait(step, [sibling], now(1), 0)).toEqual(now(1 + SIBLING_RECHECK_MINUTES));
    expect(siblingWait(step, [sibling], now(24 * 60), 0)).toEqual(now(24 * 60 + SIBLING_RECHECK_MINUTES));
    expect(siblingWait(step, [sibling], now(24 * 60), SIBLING_DEFERRALS - 1)).toEqual(now(24 * 60 + SIBLING_RECHECK_MINUTES));
    expect(siblingWait(step, [sibling], now(24 * 60), SIBLING_DEFERRALS)).toBeUndefined();
  });

  it('does not wait for a sibling due later, nor for itself; at the same time, the smaller id goes first', () => {
    const step: StepTurn = { id: 'enr_b', next_step_at: at(0) };
    expect(siblingWait(step, [{ id: 'enr_c', next_step_at: at(0) }, { id: 'enr_a', next_step_at: at(5) }, step], now(1), 0)).toBeUndefined();
    expect(siblingWait(step, [{ id: 'enr_a', next_step_at: at(0) }], now(1), 0)).toEqual(now(1 + SIBLING_RECHECK_MINUTES));
    expect(siblingWait(step, [{ id: 'enr_a', next_step_at: null }], now(1), 0)).toBeUndefined();
  });

  it('is a total order: of two due steps, exactly one waits for the other', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom('enr_a', 'enr_b'), (first, second, firstId) => {
        const a: StepTurn = { id: firstId, next_step_at: at(first) };
        const b: StepTurn = { id: firstId === 'enr_a' ? 'enr_b' : 'enr_a', next_step_at: at(second) };
        const waits = [siblingWait(a, [b], now(6), 0), siblingWait(b, [a], now(6), 0)].filter((wait) => wait !== undefined);
        expect(waits).toHaveLength(1);
      }),
    );
  });
});
