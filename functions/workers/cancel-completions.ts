import { runtime } from '#shared/runtime';
import { replayCompletion } from '#shared/domain/cancel-flows/cancel-completion-replay';
import { queueHandler } from '#shared/queue-handler';

/**
 * The cancel-completions queue's consumer: stores completions the complete request could not, once
 * each (the feedback record is keyed by session id). Failures go back to the queue, and after its
 * redrive count to the dead-letter queue, which is alarmed.
 */
export const handler = queueHandler('cancel-completions', (record) => replayCompletion(record.body, runtime.clock.now()));
