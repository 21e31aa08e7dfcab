/** The one clock all code reads, so tests and the local server can move time for every component at once. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Real time plus an offset that only ever moves forward: scheduled work, TTLs and key grace periods follow it. */
export class AdjustableClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(seconds: number): Date {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('advance_seconds must be a non-negative number');
    this.offsetMs += seconds * 1000;
    return this.now();
  }
}

/**
 * Milliseconds on a monotonic clock, for how long something took (never the service's time). Not
 * `performance.now()`: the first use of Node's `performance` global loads the perf_hooks modules,
 * 0.8 ms of a cold start that only wanted a duration.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
