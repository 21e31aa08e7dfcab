import { setTimeout as sleep } from 'node:timers/promises';
import { metrics } from '../metrics.ts';
import { runtime } from '../runtime.ts';

/**
 * Optimistic writes: read, decide, write on condition that nothing changed since the read. A write
 * that loses to a concurrent one reads again and decides again; this is the one loop that does it for
 * every such write in the service, so the retry policy for contention lives here and in the policies
 * below, not in each use case.
 */

/** How long losers wait: after the n-th loss a random moment up to min(maxMs, baseMs × 2^(n−1)), so the losers of one round do not all collide again in the next. */
export interface BackoffScale {
  baseMs: number;
  maxMs: number;
}

export interface ContentionPolicy {
  /** Names the write in the WriteContended metric and the error: a small fixed set (`ingestion`, `campaign`, …). */
  write: string;
  /** Tries in all, the first one included. */
  attempts: number;
  backoff: BackoffScale;
  /** The error to give up with, when a caller's answer is not the default ContentionExhausted (a 409, a 429). */
  exhausted?: (attempts: number) => Error;
}

/** A burst of processor events for one customer: ~1.5 s of backing off before the processor is told 429 and redelivers. */
export const INGESTION: ContentionPolicy = { write: 'ingestion', attempts: 10, backoff: { baseMs: 10, maxMs: 250 } };

/** A burst of one merchant's API requests on one record: few collide, and a request can wait a little. */
export const MERCHANT_WRITE: BackoffScale = { baseMs: 20, maxMs: 640 };

/** One subscriber's clicks racing on a cancel session: the widget waits on these, so the pauses are short and the tries many. */
export const SESSION_WRITE: BackoffScale = { baseMs: 5, maxMs: 80 };

/** Jobs and consumers (retries, dunning, deliveries, erasure): what gives up is delivered again later, so a few short tries. */
export const BACKGROUND_WRITE: BackoffScale = { baseMs: 10, maxMs: 250 };

/** What a try returns when its conditional write lost: read again and decide again. */
export const LOST = Symbol('lost to a concurrent write');
export type Try<T> = T | typeof LOST;

/** Every try of a write lost to concurrent ones. */
export class ContentionExhausted extends Error {
  constructor(
    readonly write: string,
    readonly attempts: number,
  ) {
    super(`${write}: lost to concurrent writes ${attempts} times in a row`);
    this.name = 'ContentionExhausted';
  }
}

/** What the loop waits with and draws its jitter from; the unit tests bring their own. */
export interface Pacing {
  pause(ms: number): Promise<unknown>;
  random(): number;
}

const REAL_TIME: Pacing = { pause: (ms) => sleep(ms), random: Math.random };

/** The pause after the `losses`-th lost try (1 for the first). */
export function backoffMs(scale: BackoffScale, losses: number, random: () => number): number {
  return random() * Math.min(scale.maxMs, scale.baseMs * 2 ** (losses - 1));
}

/**
 * Runs `attempt` until it returns anything but LOST, at most `policy.attempts` times, pausing between
 * tries. `attempt` gets the try's index (0 first), for callers that may use what they read before
 * the first. Past the last try the WriteContended metric is counted and the policy's error thrown.
 */
export async function writeOptimistically<T>(policy: ContentionPolicy, attempt: (index: number) => Promise<Try<T>>, pacing: Pacing = REAL_TIME): Promise<T> {
  for (let index = 0; index < policy.attempts; index++) {
    if (index > 0) await pacing.pause(backoffMs(policy.backoff, index, pacing.random));
    const outcome = await attempt(index);
    if (outcome !== LOST) return outcome;
  }
  metrics.writeContended(policy.write, policy.attempts, runtime.clock.now());
  throw policy.exhausted?.(policy.attempts) ?? new ContentionExhausted(policy.write, policy.attempts);
}
