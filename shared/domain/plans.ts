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
 * An enterprise limit can be customised per merchant, up to what one sliding-log item can serve: the
 * item holds one number per request in the window (about 9 bytes each), every request rewrites it,
 * and one item takes at most 1,000 write units a second (docs/data-model.md, "The sliding-log rate
 * limit"). At 2,000 a full log is ~18 KB: 18 units a write, room for ~3,300 requests a minute.
 */
export const MAX_CUSTOM_RATE_LIMIT = 2_000;

export function requestsPerWindow(plan: Plan, override?: number | null): number {
  return override ?? PLANS[plan].requestsPerWindow;
}
