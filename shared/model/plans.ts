/** Commercial plans and the limits they carry (§8). Numbers the spec leaves open are argued in docs/decisions.md. */
export const PLANS = {
  starter: { requestsPerWindow: 20, recoveryAttemptsPerMonth: 1_000, campaigns: { open: 10, active: 3 } },
  growth: { requestsPerWindow: 100, recoveryAttemptsPerMonth: 10_000, campaigns: { open: 50, active: 10 } },
  scale: { requestsPerWindow: 100, recoveryAttemptsPerMonth: 50_000, campaigns: { open: 100, active: 25 } },
  enterprise: { requestsPerWindow: 1000, recoveryAttemptsPerMonth: 500_000, campaigns: { open: 250, active: 100 } },
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

/** Sliding rate-limit window length (§8). */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * An enterprise limit can be customised per merchant, up to what one window item serves with room
 * to spare: the item keeps a count per second (about 65 of them at most, under 1 KB), so every request
 * is one write unit whatever the limit, and 10,000 a minute is ~170 writes a second against the
 * 1,000 one partition takes (docs/data-model.md, "The rate-limit window").
 */
export const MAX_CUSTOM_RATE_LIMIT = 10_000;

/** §8: only the top plan's limit is customisable; a custom limit kept through a downgrade applies again on the way back up. */
export const CUSTOM_RATE_LIMIT_PLAN: Plan = 'enterprise';

export function requestsPerWindow(plan: Plan, override?: number | null): number {
  return (plan === CUSTOM_RATE_LIMIT_PLAN ? override : null) ?? PLANS[plan].requestsPerWindow;
}
