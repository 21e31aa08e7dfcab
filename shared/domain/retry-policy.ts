/**
 * When the next silent retry of a soft decline runs. Today: exactly the decline row's cooldown after
 * the failure (§2.6), which every later refinement (customer's night, paydays) must never undercut.
 */
export function nextRetryAt(failedAt: Date, cooldownHours: number): Date {
  return new Date(failedAt.getTime() + cooldownHours * 3600_000);
}
