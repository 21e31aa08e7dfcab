import { randomUUID } from 'node:crypto';
import { newId } from '../../ids.ts';
import { log } from '../../log.ts';
import { findActiveCancelFlow } from '../../store/cancel-flows.ts';
import { advanceSessionWrite, insertSession, readSessionState, touchSession } from '../../store/cancel-sessions.ts';
import { findSigningSecrets } from '../../store/cancel-signing-secrets.ts';
import { cancelStartWindowPk, clientStartWindowPk } from '../../store/keys.ts';
import { findMerchant } from '../../store/merchants.ts';
import { admitRequest } from '../../store/rate-limits.ts';
import { checkStartSignature } from './cancel-signing.ts';
import { advanceChange, hashToken, isResentAdvance, newSession, TOKEN_PATTERN, type AdvanceInput, type SessionStart } from './cancel-sessions.ts';
import type { CancelSession } from '../../model/cancel-session-schema.ts';
import { invalidRequest, rateLimited, ServiceError } from '../../model/errors.ts';
import { LOST, SESSION_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { requestsPerWindow } from '../../model/plans.ts';
import { retryAfterSeconds } from '../../model/sliding-window.ts';

/**
 * The cancel-session endpoints (§4.5); complete is in cancel-session-completion.ts, so only its
 * function loads the completion queue (and needs its configuration). Errors follow §4.5: 404 for a token that is unknown, expired
 * or (on get) completed; 400 for a completed session on advance and complete. The token never
 * appears in logs or errors; the session id does.
 */
export const sessionNotFound = (): ServiceError =>
  new ServiceError('resource_not_found', 'No such cancel session: the token is unknown, expired (1 hour without activity) or already completed.');

export const alreadyCompleted = (): ServiceError => invalidRequest('This cancel session is already completed; start a new one.');

/** Racing advances and completes on one session each win once; the losers read again and go after the winners. */
export const SESSION_RACES: ContentionPolicy = { write: 'cancel_session', attempts: 25, backoff: SESSION_WRITE };

/** Only a v4 UUID can be a token; anything else is 404 without reading the table. */
export function tokenHash(token: string): string {
  if (!TOKEN_PATTERN.test(token)) throw sessionNotFound();
  return hashToken(token);
}

/** Starts one client address may make a minute, whichever merchants they name: a subscriber needs a few, more is someone trying ids. */
export const STARTS_PER_CLIENT_PER_WINDOW = 60;

/** Counts a start in a window; refused, 429 with when to retry. */
async function admitStart(windowPk: string, limit: number, now: Date): Promise<void> {
  const nowMs = now.getTime();
  const outcome = await admitRequest(windowPk, limit, nowMs);
  if (!outcome.admitted) throw rateLimited(retryAfterSeconds(outcome.counts, limit, nowMs));
}

/**
 * POST /api/cancel-session/start: a session on the merchant's active flow of that environment.
 * Checked in this order: the client's own limit (anything it sends counts), the signature (401), the
 * merchant's limit (only signed starts spend it, so a stranger cannot use it up), the active flow (404).
 */
export async function startSession(start: SessionStart, clientIp: string | undefined, now: Date): Promise<{ token: string; session: CancelSession }> {
  const tenant = { merchantId: start.merchantId, environment: start.environment };
  // Without an address (never so behind API Gateway) every such caller shares one window: fail closed.
  await admitStart(clientStartWindowPk(clientIp ?? 'unknown'), STARTS_PER_CLIENT_PER_WINDOW, now);
  const [merchant, secrets, flow] = await Promise.all([findMerchant(start.merchantId), findSigningSecrets(tenant), findActiveCancelFlow(tenant)]);
  checkStartSignature(start, secrets, now);
  if (merchant) await admitStart(cancelStartWindowPk(tenant), requestsPerWindow(merchant.plan, merchant.rate_limit_override), now);
  if (!flow || flow.status !== 'active') {
    throw new ServiceError('resource_not_found', `Merchant '${start.merchantId}' has no active cancel flow in ${start.environment} mode.`);
  }
  const token = randomUUID();
  const session = newSession(newId('cfs', now), start, flow, now);
  await insertSession(hashToken(token), session);
  log.info('cancel session started', { session_id: session.session_id, merchant_id: start.merchantId, cancel_flow_id: flow.id });
  return { token, session };
}

/** GET /api/cancel-session/{token}: the session (its idle hour restarted). A completed session is gone: 404. */
export async function readSession(token: string, now: Date): Promise<CancelSession> {
  const session = await touchSession(tokenHash(token), now);
  if (!session) throw sessionNotFound();
  return session;
}

/** The live session, or the error its absence means on advance and complete. */
async function liveSession(hash: string, now: Date): Promise<CancelSession> {
  const state = await readSessionState(hash, now);
  if (state.session) return state.session;
  throw state.completed ? alreadyCompleted() : sessionNotFound();
}

/** POST .../advance: appends the response at the current step, never losing one to a concurrent advance, nor appending a resend twice. */
export async function advanceSession(token: string, input: AdvanceInput, now: Date): Promise<CancelSession> {
  const hash = tokenHash(token);
  return writeOptimistically(SESSION_RACES, async () => {
    const session = await liveSession(hash, now);
    if (isResentAdvance(session, input)) return session;
    return (await advanceSessionWrite(hash, session, advanceChange(session, input, now), now)) ?? LOST;
  });
}
