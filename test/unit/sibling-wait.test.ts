import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SIBLING_RECHECK_MINUTES, siblingWait, siblingWaited, type StepTurn } from '../../shared/model/enrollment.ts';
import { JOB_ASYNC_RETRIES } from '../../shared/jobs.ts';

/** How long the dunning domain lets a step wait: Lambda's maximum event age for job functions. */
const BOUND = JOB_ASYNC_RETRIES.maxEventAgeHours * 60;

const at = (minutes: number): string => new Date(Date.UTC(2026, 10, 26, 12) + minutes * 60_000).toISOString();
const now = (minutes: number): Date => new Date(at(minutes));

describe('siblingWait', () => {
  it('waits for a sibling step due earlier, looking again after 2 minutes, then twice as long each time up to an hour, for at most the bound', () => {
    // Prepare: this step due at 12:00:30, its sibling's at 12:00 and not run.
    const step: StepTurn = { id: 'enr_b', next_step_at: at(0.5) };
    const sibling: StepTurn = { id: 'enr_a', next_step_at: at(0) };
    const looks = Array.from({ length: 12 }, (_, deferrals) => siblingWait(step, [sibling], now(24 * 60), deferrals, BOUND));

    // Assess: the gaps, however late the step runs (a day late, as after an outage); the bound reached in ten looks.
    expect(siblingWait(step, [sibling], now(1), 0, BOUND)).toEqual(now(1 + SIBLING_RECHECK_MINUTES));
    expect(looks.map((look) => (look === undefined ? undefined : (look.getTime() - now(24 * 60).getTime()) / 60_000))).toEqual([2, 4, 8, 16, 32, 60, 60, 60, 60, 60, undefined, undefined]);
    expect([siblingWaited(9), siblingWaited(10)]).toEqual([302, 362]);
  });

  it('does not wait for a sibling due later, nor for itself; at the same time, the smaller id goes first', () => {
    const step: StepTurn = { id: 'enr_b', next_step_at: at(0) };
    expect(siblingWait(step, [{ id: 'enr_c', next_step_at: at(0) }, { id: 'enr_a', next_step_at: at(5) }, step], now(1), 0, BOUND)).toBeUndefined();
    expect(siblingWait(step, [{ id: 'enr_a', next_step_at: at(0) }], now(1), 0, BOUND)).toEqual(now(1 + SIBLING_RECHECK_MINUTES));
    expect(siblingWait(step, [{ id: 'enr_a', next_step_at: null }], now(1), 0, BOUND)).toBeUndefined();
  });

  it('is a total order: of two due steps, exactly one waits for the other', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom('enr_a', 'enr_b'), (first, second, firstId) => {
        const a: StepTurn = { id: firstId, next_step_at: at(first) };
        const b: StepTurn = { id: firstId === 'enr_a' ? 'enr_b' : 'enr_a', next_step_at: at(second) };
        const waits = [siblingWait(a, [b], now(6), 0, BOUND), siblingWait(b, [a], now(6), 0, BOUND)].filter((wait) => wait !== undefined);
        expect(waits).toHaveLength(1);
      }),
    );
  });
});
