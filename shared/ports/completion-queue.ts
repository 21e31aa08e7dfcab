import type { CancelCompletion } from '../model/cancel-session-schema.ts';

/**
 * Where a cancel-session completion goes when storing it failed (§4.5: "the session is still consumed
 * and the completion is queued for retry in a dead-letter mechanism"). SQS in AWS, drained by the
 * cancel-completions worker; an in-process queue locally, drained by the local server's timer,
 * `POST /__dev/run-due` or a test. Delivery is at least once: the worker stores idempotently.
 */
export interface CompletionQueue {
  enqueue(completion: CancelCompletion): Promise<void>;
}
