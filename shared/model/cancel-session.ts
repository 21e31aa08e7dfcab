/**
 * A cancel session's lifetime and outcomes (§4.5, §8). Apart from cancel-session-schema.ts, whose
 * schemas build every step schema at import: the session endpoints and the store need only these.
 */

/** §8: a session expires after one hour without a call; every call starts the hour again. */
export const SESSION_IDLE_SECONDS = 3600;
/** How long a completed session's token still answers 400 (instead of 404) on advance and complete. */
export const COMPLETED_TOKEN_SECONDS = 24 * 3600;

export const OUTCOMES = ['saved', 'churned'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Rounded up, so a session lives at least the full hour. */
export const expiryAfter = (now: Date, seconds = SESSION_IDLE_SECONDS): number => Math.ceil(now.getTime() / 1000) + seconds;

/** DynamoDB deletes expired items late (up to days): every read decides expiry itself, on the service clock. */
export const isExpired = (expiresAt: number, now: Date): boolean => now.getTime() >= expiresAt * 1000;
