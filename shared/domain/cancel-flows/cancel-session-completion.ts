import { describeError, log } from '../../log.ts';
import type { Ports } from '../../ports/ports.ts';
import { consumeSession, readSessionState } from '../../store/cancel-sessions.ts';
import { persistCompletion, type PersistOutcome } from './cancel-completion.ts';
import { LOST, writeOptimistically } from '../contention.ts';
import { alreadyCompleted, sessionNotFound, SESSION_RACES, tokenHash } from './cancel-session-lifecycle.ts';
import { completionOf, type CompletionInput } from './cancel-sessions.ts';
import type { Outcome } from '../../model/cancel-session.ts';

export interface CompletionResult {
  outcome: Outcome;
  sessionId: string;
  /** The merchant's allowed origins, for the response's CORS header. */
  corsOrigins: readonly string[];
  /** stored: persisted now; queued: persisting failed, the session is consumed and the completion waits in the dead-letter queue. */
  persisted: 'stored' | 'queued';
}

/**
 * POST .../complete: stores the completion with the session's end in one transaction. When storing
 * fails (a database fault, or a conflict the completion cannot resolve), the completion goes to the
 * completion queue, the session is consumed anyway, and the caller is told it completed: the worker
 * stores it later, once (§4.5). A resend of the completion the session ended with (the widget's, after
 * an error that came after the session was consumed) is answered as that completion was; any other
 * complete of a completed session is 400.
 */
export async function completeSession(ports: Pick<Ports, 'completionQueue'>, token: string, input: CompletionInput, now: Date): Promise<CompletionResult> {
  const hash = tokenHash(token);
  return writeOptimistically(SESSION_RACES, async () => {
    const { session, completed } = await readSessionState(hash, now);
    if (!session) {
      if (completed?.outcome === input.outcome && completed.reason === input.reason) {
        return { outcome: completed.outcome, sessionId: completed.sessionId, corsOrigins: completed.allowedOrigins, persisted: 'stored' as const };
      }
      throw completed ? alreadyCompleted() : sessionNotFound();
    }
    const completion = completionOf(hash, session, input, now);
    const result = { outcome: input.outcome, sessionId: session.session_id, corsOrigins: session.allowed_origins };
    let persisted: PersistOutcome | 'failed';
    try {
      persisted = await persistCompletion(completion, session.current_step, 'request', now);
    } catch (error) {
      log.error('cancel completion could not be stored; queueing it', { session_id: session.session_id, ...describeError(error) });
      persisted = 'failed';
    }
    if (persisted === 'stored' || persisted === 'already_stored') return { ...result, persisted: 'stored' };
    if (persisted === 'session_changed') return LOST;
    if (persisted === 'conflict') log.error('cancel completion conflicts with stored data; queueing it', { session_id: session.session_id });
    // Queued first: if that fails the request fails and the session is still there to complete again.
    await ports.completionQueue.enqueue(completion);
    try {
      await consumeSession(completion, now);
    } catch (error) {
      // The worker's replay deletes the session too; until then the token still works, and a second
      // completion is stored at most once (the feedback key).
      log.error('cancel session could not be consumed after queueing its completion', { session_id: session.session_id, ...describeError(error) });
    }
    return { ...result, persisted: 'queued' as const };
  });
}
