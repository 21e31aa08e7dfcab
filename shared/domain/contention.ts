/**
 * Optimistic writes to one item (a customer many failures arrive for at once) lose to concurrent
 * ones. A loser waits a random moment before it reads again, longer after each loss, so the losers
 * of one round do not all collide again in the next.
 */
export function pauseAfterConflict(attempt: number): Promise<void> {
  const ceilingMs = Math.min(250, 10 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceilingMs));
}
