import type { RetryOutcome } from '../../ports/payment-processor.ts';

class DeadlinePassed extends Error {}

/**
 * The work's outcome, or no_answer once `ms` have passed. A processor request in flight
 * cannot be recalled and may still land later (Stripe: under the same idempotency key); `ensureInTime`
 * keeps the work from starting a charge after the caller was told there was no answer.
 */
export async function withinDeadline(
  processor: string,
  ms: number,
  work: (ensureInTime: () => void) => Promise<RetryOutcome>,
): Promise<RetryOutcome> {
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<RetryOutcome>((resolve) => {
    timer = setTimeout(() => {
      expired = true;
      resolve({ outcome: 'no_answer', reason: `${processor} did not answer within ${ms} ms` });
    }, ms);
  });
  const ensureInTime = (): void => {
    if (expired) throw new DeadlinePassed('The retry ran out of time before charging');
  };
  try {
    return await Promise.race([work(ensureInTime), late]);
  } finally {
    clearTimeout(timer);
  }
}
