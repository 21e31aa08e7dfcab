import { log } from '../../log.ts';
import { persistCompletion } from './cancel-completion.ts';
import { cancelCompletionSchema } from '../../model/cancel-session-schema.ts';

/**
 * The dead-letter worker's step for one queued completion: store it, or find it stored already (the
 * request's own attempt may have landed after all, or this message is a repeat delivery). Anything
 * else throws, so the message is delivered again and, after the queue's redrive count, set aside in
 * the dead-letter queue with an alarm.
 */
export async function replayCompletion(body: string, now: Date): Promise<'stored' | 'already_stored'> {
  const parsed = cancelCompletionSchema.safeParse(JSON.parse(body));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`The message is not a cancel completion: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const completion = parsed.data;
  const outcome = await persistCompletion(completion, null, 'replay', now);
  if (outcome === 'stored' || outcome === 'already_stored') {
    log.info('queued cancel completion replayed', { session_id: completion.session.session_id, outcome });
    return outcome;
  }
  throw new Error(`Queued completion of cancel session ${completion.session.session_id} could not be stored: ${outcome}`);
}

