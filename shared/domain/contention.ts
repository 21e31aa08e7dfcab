import { setTimeout as sleep } from 'node:timers/promises';

/** How long losers of an optimistic write may wait: `baseMs` after the first loss, doubling, never over `maxMs`. */
export interface BackoffScale {
  baseMs: number;
  maxMs: number;
}

/** Ingestion's: a burst of processor events for one customer. */
const INGESTION_SCALE: BackoffScale = { baseMs: 10, maxMs: 250 };

/** A burst of one merchant's API requests on one campaign or cancel flow: few collide, and a request can wait a little. */
export const MERCHANT_WRITE_SCALE: BackoffScale = { baseMs: 20, maxMs: 640 };

/**
 * Optimistic writes to one item lose to concurrent ones. A loser waits a random moment before it
 * reads again, longer after each loss, so the losers of one round do not all collide again in the next.
 */
export function pauseAfterConflict(attempt: number, scale: BackoffScale = INGESTION_SCALE): Promise<void> {
  return sleep(Math.random() * Math.min(scale.maxMs, scale.baseMs * 2 ** attempt));
}
