import { classifyDecline } from '../declines/decline-classification.ts';
import { countRecovery, countTerminal, withStatus } from '../ingestion/failure-accounting.ts';
import type { Customer } from '../../model/customer.ts';
import { isAnonymised, RETRY_CHANNELS, type Payment, type RetryAttempt, type RetryTrigger } from '../../model/payment.ts';
import type { RetryOutcome } from '../../ports/payment-processor.ts';
import { MAX_CONSECUTIVE_NO_ANSWERS, nextRetryAt, noAnswerRerunAt } from './retry-policy.ts';

/**
 * Pure state changes for retries: claiming an attempt, and what each processor answer does to the
 * payment and its customer. retry-execution.ts persists them.
 */
export type { RetryTrigger };

/**
 * §3.2: a manual retry may start from pending or communication_pending; a scheduled one only from
 * pending. A new card is the customer's action communication_pending waits for, so it may too.
 */
export function canStartRetry(payment: Payment, trigger: RetryTrigger): boolean {
  return trigger === 'automatic' ? payment.status === 'pending' : payment.status === 'pending' || payment.status === 'communication_pending';
}

export function claimAttempt(payment: Payment, now: Date, trigger: RetryTrigger, claimKey?: string): Payment {
  const at = now.toISOString();
  const { retry_claim_key: _previous, ...unclaimed } = payment;
  return {
    ...unclaimed,
    ...(claimKey === undefined ? {} : { retry_claim_key: claimKey }),
    status: 'retrying',
    retry_trigger: trigger,
    retry_count: payment.retry_count + 1,
    retry_initiated_at: at,
    next_retry_at: null,
    updated_at: at,
    version: payment.version + 1,
  };
}

export interface AttemptResult {
  payment: Payment;
  customer: Customer | undefined;
  /** When the next automatic attempt should run, if one should. */
  nextAttemptAt: Date | null;
  events: ('payment.recovered' | 'customer.retained' | 'payment.retry_failed' | 'payment.retry_scheduled' | 'payment.terminal')[];
}

function recorded(payment: Payment, attempt: RetryAttempt, now: Date): Payment {
  return {
    ...payment,
    retries: [...payment.retries, attempt],
    retry_initiated_at: null,
    consecutive_no_answers: 0,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

/**
 * A claimed attempt whose payment a processor event settled meanwhile (paid, or ended elsewhere): its
 * answer, if it got one, joins the history; one that never reached the processor or got no answer is
 * given back. Either way retry_count stays the number of attempts made. Undefined: nothing to do (the
 * attempt is still running, or was already recorded or given back).
 */
export function attemptAfterSettlement(payment: Payment, attempt: number, outcome: RetryOutcome | undefined, now: Date): Payment | undefined {
  if (payment.status === 'retrying' || payment.retry_count !== attempt || payment.retries.length >= attempt) return undefined;
  const at = now.toISOString();
  const touched = { ...payment, retry_initiated_at: null, updated_at: at, version: payment.version + 1 };
  if (outcome === undefined || !chargeAnswered(outcome)) return { ...touched, retry_count: attempt - 1 };
  const answered: RetryAttempt =
    outcome.outcome === 'succeeded'
      ? { attempt, status: 'succeeded', decline_code: null, attempted_at: at }
      : { attempt, status: 'failed', decline_code: outcome.declineCode, attempted_at: at };
  return { ...touched, retries: [...payment.retries, answered] };
}

/** Whether the processor tried the charge (it was paid or declined); any other answer charged nothing. */
function chargeAnswered(outcome: RetryOutcome): outcome is Extract<RetryOutcome, { outcome: 'succeeded' | 'declined' }> {
  return outcome.outcome === 'succeeded' || outcome.outcome === 'declined';
}

/**
 * An attempt that was in flight when its customer was erased and did not recover the payment: recovery
 * ends there, as it did at erasure for the customer's other open payments (customer-erasure.ts).
 */
function endedByErasure(payment: Payment, events: AttemptResult['events']): AttemptResult {
  return { payment: { ...payment, status: 'terminal', next_retry_at: null }, customer: undefined, nextAttemptAt: null, events };
}

/**
 * What one answer from the processor means for a claimed attempt. Further attempts are placed by the
 * retry policy in the customer's zone (`timeZone`, UTC when unknown).
 */
export function applyOutcome(input: {
  payment: Payment;
  customer: Customer | undefined;
  outcome: RetryOutcome;
  trigger: RetryTrigger;
  now: Date;
  timeZone: string | null;
}): AttemptResult {
  const { payment, customer, outcome, trigger, now, timeZone } = input;
  const at = now.toISOString();
  if (outcome.outcome === 'succeeded') {
    const next: Payment = {
      ...recorded(payment, { attempt: payment.retry_count, status: 'succeeded', decline_code: null, attempted_at: at }, now),
      status: 'recovered',
      recovered_at: at,
      next_retry_at: null,
      recovery_channel: RETRY_CHANNELS[trigger],
    };
    return { payment: next, customer: customer && countRecovery(customer, next, now), nextAttemptAt: null, events: ['payment.recovered', 'customer.retained'] };
  }
  if (!chargeAnswered(outcome)) return uncharged(payment, customer, outcome, now, timeZone);
  // The latest decline is why the payment is failing now, so its row decides everything from here:
  // route, retry budget and cooldown (§2.6 rule 2). A decline without a code leaves the last known one.
  const declineCode = outcome.declineCode ?? payment.decline_code;
  const classification = classifyDecline(payment.psp, declineCode);
  const failed: Payment = {
    ...recorded(payment, { attempt: payment.retry_count, status: 'failed', decline_code: outcome.declineCode, attempted_at: at }, now),
    decline_code: declineCode,
    decline_category: classification.category,
    decline_subcategory: classification.subcategory,
    customer_action: classification.customerAction,
    mapping_version: classification.mappingVersion,
    max_retries: classification.maxRetries,
    cooldown_hours: classification.cooldownHours,
  };
  if (isAnonymised(payment)) return endedByErasure(failed, ['payment.retry_failed', 'payment.terminal']);
  if (classification.category === 'terminal') {
    const terminal: Payment = { ...failed, status: 'terminal', next_retry_at: null };
    return { payment: terminal, customer: customer && withStatus(countTerminal(customer), now), nextAttemptAt: null, events: ['payment.retry_failed', 'payment.terminal'] };
  }
  if (classification.category === 'soft_retry' && classification.cooldownHours !== null && failed.retry_count < failed.max_retries) {
    const when = nextRetryAt({ failedAt: now, cooldownHours: classification.cooldownHours, subcategory: classification.subcategory, timeZone });
    return {
      payment: { ...failed, status: 'pending', next_retry_at: when.toISOString() },
      customer,
      nextAttemptAt: when,
      events: ['payment.retry_failed', 'payment.retry_scheduled'],
    };
  }
  // Soft retries exhausted, or a decline only the customer can fix: dunning takes over.
  return { payment: { ...failed, status: 'communication_pending', next_retry_at: null }, customer, nextAttemptAt: null, events: ['payment.retry_failed'] };
}

/**
 * An answer that charged nothing: the attempt is handed back, not consumed (retry_count stays the
 * attempts made). No answer: the same attempt (same idempotency key) runs again later, until days
 * of silence hand the payment to dunning as when soft retries run out. A refusal stops retrying
 * until someone acts; only a customer is asked to (a merchant's credentials are not theirs to fix,
 * and campaigns the failure enrolled at intake go on). Nothing left to collect ends recovery, and
 * with it the customer's dunning (docs/retry-policy.md).
 */
function uncharged(
  payment: Payment,
  customer: Customer | undefined,
  outcome: Exclude<RetryOutcome, { outcome: 'succeeded' | 'declined' }>,
  now: Date,
  timeZone: string | null,
): AttemptResult {
  const noAnswers = outcome.outcome === 'no_answer' ? (payment.consecutive_no_answers ?? 0) + 1 : 0;
  const back: Payment = {
    ...payment,
    retry_count: payment.retry_count - 1,
    retry_initiated_at: null,
    consecutive_no_answers: noAnswers,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
  if (isAnonymised(payment)) return endedByErasure(back, ['payment.terminal']);
  const toDunning = (events: AttemptResult['events']): AttemptResult => ({
    payment: { ...back, status: 'communication_pending', next_retry_at: null },
    customer: customer && withStatus(customer, now),
    nextAttemptAt: null,
    events,
  });
  switch (outcome.outcome) {
    case 'closed':
      return {
        payment: { ...back, status: 'terminal', next_retry_at: null },
        customer: customer && withStatus(countTerminal(customer), now),
        nextAttemptAt: null,
        events: ['payment.terminal'],
      };
    case 'refused':
      return toDunning(outcome.awaits === 'customer' ? ['payment.retry_failed'] : []);
    case 'no_answer': {
      if (noAnswers >= MAX_CONSECUTIVE_NO_ANSWERS) return toDunning(['payment.retry_failed']);
      const when = noAnswerRerunAt(now, noAnswers, timeZone);
      return { payment: { ...back, status: 'pending', next_retry_at: when.toISOString() }, customer, nextAttemptAt: when, events: ['payment.retry_scheduled'] };
    }
  }
}
