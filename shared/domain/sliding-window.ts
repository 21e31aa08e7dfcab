import { RATE_LIMIT_WINDOW_SECONDS } from './plans.ts';

const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

/**
 * A sliding-log rate limit: the log holds the arrival times (ms) of admitted requests, oldest first.
 * A request is admitted when fewer than `limit` of them fall inside the last 60 seconds.
 */
export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest request in the window leaves it, freeing a slot. */
  resetAt: number;
}

export function windowCutoff(nowMs: number): number {
  return nowMs - WINDOW_MS;
}

function inWindow(log: readonly number[], nowMs: number): number[] {
  const cutoff = windowCutoff(nowMs);
  return log.filter((at) => at > cutoff).sort((a, b) => a - b);
}

export function describeWindow(log: readonly number[], limit: number, nowMs: number): WindowState {
  const recent = inWindow(log, nowMs);
  const oldest = recent[0] ?? nowMs;
  return {
    limit,
    remaining: Math.max(0, limit - recent.length),
    resetAt: Math.ceil((oldest + WINDOW_MS) / 1000),
  };
}

/** Whole seconds until enough requests leave the window for one more to be admitted (at least 1). */
export function secondsUntilAdmitted(log: readonly number[], limit: number, nowMs: number): number {
  const recent = inWindow(log, nowMs);
  if (recent.length < limit) return 0;
  const mustExpire = recent[recent.length - limit]!;
  return Math.max(1, Math.ceil((mustExpire + WINDOW_MS - nowMs) / 1000));
}
