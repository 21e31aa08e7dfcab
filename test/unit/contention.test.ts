import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs, ContentionExhausted, LOST, writeOptimistically, type ContentionPolicy, type Pacing } from '../../shared/domain/contention.ts';
import { useMetricSink } from '../../shared/metrics.ts';

/** Pacing that waits for nothing and records what it was asked to wait, drawing jitter from `draws`. */
function recordedPacing(draws: readonly number[]): Pacing & { pauses: number[] } {
  const pauses: number[] = [];
  let next = 0;
  return {
    pauses,
    pause: async (ms) => {
      pauses.push(ms);
    },
    random: () => draws[next++ % draws.length]!,
  };
}

/** A write that loses to concurrent ones `losses` times, then succeeds with the number of its try. */
function losingWrite(losses: number) {
  const calls: number[] = [];
  const attempt = async (index: number) => {
    calls.push(index);
    return calls.length > losses ? calls.length : LOST;
  };
  return { calls, attempt };
}

/** Runs `act` with metric lines collected instead of written; returns them parsed. */
async function collectMetrics(act: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  const previous = useMetricSink((line) => lines.push(line));
  try {
    await act();
  } catch {
    // The run's outcome is asserted by the caller; only the lines matter here.
  } finally {
    useMetricSink(previous);
  }
  return lines.map((line) => JSON.parse(line));
}

const policies = fc.record({
  write: fc.constantFrom('ingestion', 'campaign', 'cancel_session'),
  attempts: fc.integer({ min: 1, max: 25 }),
  backoff: fc.record({ baseMs: fc.integer({ min: 0, max: 100 }), maxMs: fc.integer({ min: 0, max: 1_000 }) }),
});
const draws = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 30 });

describe('optimistic writes under contention', () => {
  it('tries at most the policy allows, with a pause between tries and none after the last (property)', async () => {
    await fc.assert(
      fc.asyncProperty(policies, fc.integer({ min: 0, max: 40 }), draws, async (policy, losses, jitter) => {
        // Prepare
        const pacing = recordedPacing(jitter);
        const { calls, attempt } = losingWrite(losses);
        // Act
        const result = await writeOptimistically(policy, attempt, pacing).catch((error: unknown) => error);
        // Assess
        expect(calls.length).toBe(Math.min(losses + 1, policy.attempts));
        expect(calls).toEqual(calls.map((_, index) => index));
        expect(pacing.pauses).toHaveLength(calls.length - 1);
        if (losses < policy.attempts) expect(result).toBe(losses + 1);
        else expect(result).toEqual(new ContentionExhausted(policy.write, policy.attempts));
      }),
    );
  });

  it('gives up with a typed error naming the write, or the policy’s own error, and counts it in WriteContended (property)', async () => {
    await fc.assert(
      fc.asyncProperty(policies, fc.boolean(), async (policy, ownError) => {
        // Prepare
        const refusal = new Error('retry the request');
        const withError: ContentionPolicy = ownError ? { ...policy, exhausted: () => refusal } : policy;
        let thrown: unknown;
        // Act
        const lines = await collectMetrics(async () => {
          thrown = await writeOptimistically(withError, losingWrite(Number.POSITIVE_INFINITY).attempt, recordedPacing([0.5])).catch((error: unknown) => error);
        });
        // Assess
        if (ownError) expect(thrown).toBe(refusal);
        else expect(thrown).toMatchObject({ name: 'ContentionExhausted', write: policy.write, attempts: policy.attempts });
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ Write: policy.write, WriteContended: 1, attempts: policy.attempts });
      }),
    );
  });

  it('waits a random moment no longer than min(maxMs, baseMs × 2^(losses−1)) after each loss (property)', async () => {
    await fc.assert(
      fc.asyncProperty(policies, draws, async (policy, jitter) => {
        // Prepare
        const pacing = recordedPacing(jitter);
        // Act
        await writeOptimistically(policy, losingWrite(Number.POSITIVE_INFINITY).attempt, pacing).catch(() => undefined);
        // Assess
        pacing.pauses.forEach((ms, index) => {
          const ceiling = Math.min(policy.backoff.maxMs, policy.backoff.baseMs * 2 ** index);
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(ceiling);
          expect(ms).toBe(backoffMs(policy.backoff, index + 1, () => jitter[index % jitter.length]!));
        });
      }),
    );
  });

  it('stops at the first error a try throws: only a lost conditional write is tried again', async () => {
    // Prepare
    const pacing = recordedPacing([0.5]);
    let calls = 0;
    const refused = new Error('validation');
    // Act
    const thrown = await writeOptimistically(
      { write: 'campaign', attempts: 6, backoff: { baseMs: 20, maxMs: 640 } },
      async () => {
        calls += 1;
        throw refused;
      },
      pacing,
    ).catch((error: unknown) => error);
    // Assess
    expect(thrown).toBe(refused);
    expect(calls).toBe(1);
    expect(pacing.pauses).toEqual([]);
  });
});
