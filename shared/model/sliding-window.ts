import { RATE_LIMIT_WINDOW_SECONDS } from './plans.ts';

/**
 * A sliding rate-limit window kept as admitted requests counted per second of arrival (Unix
 * seconds → requests), so its size is bounded by the window's length, not by the limit. A second
 * counts while any moment of it is inside the last 60 s: a request is held at most one second
 * longer than an exact log would hold it, and never released earlier, so the window never admits
 * more than the limit in any 60 s. The headers speak in whole seconds, which is what they can
 * say anyway (docs/data-model.md, "The rate-limit window").
 */
export type SecondCounts = ReadonlyMap<number, number>;

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest second in the window leaves it, freeing its slots. */
  resetAt: number;
}

/** The second a request arriving at `nowMs` is counted in. */
export function secondOf(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** The earliest second still inside the window at `nowMs`: its end is less than 60 s ago. */
function firstSecondInWindow(nowMs: number): number {
  return secondOf(nowMs) - RATE_LIMIT_WINDOW_SECONDS;
}

/** When a second's requests have all left the window. */
function leavesAt(second: number): number {
  return second + RATE_LIMIT_WINDOW_SECONDS + 1;
}

/** Requests counted in these seconds. */
export function requestsIn(seconds: readonly (readonly [number, number])[]): number {
  return seconds.reduce((sum, [, count]) => sum + count, 0);
}

/** The seconds of the window at `nowMs` with their counts, oldest first. */
function inWindow(counts: SecondCounts, nowMs: number): [number, number][] {
  const first = firstSecondInWindow(nowMs);
  return [...counts].filter(([second]) => second >= first).sort(([a], [b]) => a - b);
}

/** Requests the window holds at `nowMs`. */
export function countInWindow(counts: SecondCounts, nowMs: number): number {
  return requestsIn(inWindow(counts, nowMs));
}

/** The seconds that have left the window at `nowMs`, with their counts. */
export function expiredSeconds(counts: SecondCounts, nowMs: number): [number, number][] {
  const first = firstSecondInWindow(nowMs);
  return [...counts].filter(([second]) => second < first);
}

export function describeWindow(counts: SecondCounts, limit: number, nowMs: number): WindowState {
  const recent = inWindow(counts, nowMs);
  const held = requestsIn(recent);
  return {
    limit,
    remaining: Math.max(0, limit - held),
    resetAt: leavesAt(recent[0]?.[0] ?? secondOf(nowMs)),
  };
}

/** Whole seconds until enough requests leave the window for one more to be admitted (0 when one would be now). */
export function secondsUntilAdmitted(counts: SecondCounts, limit: number, nowMs: number): number {
  const recent = inWindow(counts, nowMs);
  let mustLeave = requestsIn(recent) - limit + 1;
  if (mustLeave <= 0) return 0;
  for (const [second, count] of recent) {
    mustLeave -= count;
    if (mustLeave <= 0) return Math.max(1, Math.ceil((leavesAt(second) * 1000 - nowMs) / 1000));
  }
  throw new Error('unreachable: the window holds more requests than it must release');
}

/** What a refused request is told to wait: at least a second, as Retry-After 0 would invite an immediate retry. */
export function retryAfterSeconds(counts: SecondCounts, limit: number, nowMs: number): number {
  return Math.max(1, secondsUntilAdmitted(counts, limit, nowMs));
}
