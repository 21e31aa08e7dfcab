/**
 * Runs independent steps together and lets every one of them finish, then throws the first failure
 * (in the order given) or returns their results in that order. For work retried as a whole whose
 * steps are each idempotent: nothing is left running when the caller retries or its Lambda freezes.
 */
export async function settleAll<T>(steps: readonly Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(steps);
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
