import { classifyDecline } from './decline-classification.ts';
import { countRecovery, withStatus } from './failure-accounting.ts';
import type { Customer } from './customers.ts';
import type { Payment, RetryAttempt } from './payments.ts';
import type { RetryOutcome } from '../ports/payment-processor.ts';

/**
 * Pure state changes for retries: claiming an attempt, and what each processor answer does to the
 * payment and its customer. retry-execution.ts persists them.
 */
export type RetryTrigger = 'automatic' | 'manual';

/** §3.2: a manual retry may start from pending or communication_pending; a scheduled one only from pending. */
export function canStartRetry(payment: Payment, trigger: RetryTrigger): boolean {
  return trigger === 'manual' ? payment.status === 'pending' || payment.status === 'communication_pending' : payment.status === 'pending';
}

export function claimAttempt(payment: Payment, now: Date): Payment {
  const at = now.toISOString();
  return {
    ...payment,
    status: 'retrying',
    retry_count: payment.retry_count + 1,
    retry_initiated_at: at,
    next_retry_at: null,
    updated_at: at,
    version: payment.version + 1,
  };
}

/** Backoff after the processor gave no answer: 5 min, 10, 20 … capped at 6 h. */
export function noAnswerBackoffMs(consecutiveNoAnswers: number): number {
  return Math.min(6 * 3600_000, 5 * 60_000 * 2 ** Math.max(0, consecutiveNoAnswers - 1));
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
 * What one answer from the processor means for a claimed attempt. `nextRetryAt` places a further
 * soft-decline attempt (the retry policy); `noAnswers` counts consecutive attempts that got none.
 */
export function applyOutcome(input: {
  payment: Payment;
  customer: Customer | undefined;
  outcome: RetryOutcome;
  trigger: RetryTrigger;
  now: Date;
  /** Places the next soft-decline attempt (the retry policy, in the customer's zone). */
  nextRetryAt: (cooldownHours: number, subcategory: string | null) => Date;
}): AttemptResult {
  const { payment, customer, outcome, trigger, now } = input;
  const at = now.toISOString();
  if (outcome.outcome === 'succeeded') {
    const next: Payment = {
      ...recorded(payment, { attempt: payment.retry_count, status: 'succeeded', decline_code: null, attempted_at: at }, now),
      status: 'recovered',
      recovered_at: at,
      next_retry_at: null,
      recovery_channel: trigger === 'manual' ? 'manual_retry' : 'automatic_retry',
    };
    return { payment: next, customer: customer && countRecovery(customer, next, now), nextAttemptAt: null, events: ['payment.recovered', 'customer.retained'] };
  }
  if (outcome.outcome === 'no_answer') {
    // The attempt is handed back, not consumed: the same attempt (same idempotency key) runs again later.
    const noAnswers = (payment.consecutive_no_answers ?? 0) + 1;
    const back: Payment = {
      ...payment,
      retry_count: payment.retry_count - 1,
      retry_initiated_at: null,
      consecutive_no_answers: noAnswers,
      updated_at: at,
      version: payment.version + 1,
    };
    if (!outcome.retryable) {
      const dunning: Payment = { ...back, status: 'communication_pending', next_retry_at: null };
      return { payment: dunning, customer: customer && withStatus(customer, now), nextAttemptAt: null, events: [] };
    }
    const when = new Date(now.getTime() + noAnswerBackoffMs(noAnswers));
    return { payment: { ...back, status: 'pending', next_retry_at: when.toISOString() }, customer, nextAttemptAt: when, events: ['payment.retry_scheduled'] };
  }
  const classification = classifyDecline(payment.psp, outcome.declineCode);
  const failed: Payment = {
    ...recorded(payment, { attempt: payment.retry_count, status: 'failed', decline_code: outcome.declineCode, attempted_at: at }, now),
    // The latest decline is why the payment is failing now, so it decides the route from here.
    decline_code: outcome.declineCode ?? payment.decline_code,
    decline_category: classification.category,
    decline_subcategory: classification.subcategory,
    customer_action: classification.customerAction,
    mapping_version: classification.mappingVersion,
  };
  if (classification.category === 'terminal') {
    const terminal: Payment = { ...failed, status: 'terminal', next_retry_at: null };
    const next = customer && withStatus({ ...customer, failed_payments: Math.max(0, customer.failed_payments - 1), terminal_payments: customer.terminal_payments + 1 }, now);
    return { payment: terminal, customer: next, nextAttemptAt: null, events: ['payment.retry_failed', 'payment.terminal'] };
  }
  if (classification.category === 'soft_retry' && failed.retry_count < failed.max_retries) {
    const when = input.nextRetryAt(classification.cooldownHours ?? failed.cooldown_hours ?? 24, classification.subcategory);
    return {
      payment: { ...failed, status: 'pending', next_retry_at: when.toISOString(), cooldown_hours: classification.cooldownHours ?? failed.cooldown_hours },
      customer,
      nextAttemptAt: when,
      events: ['payment.retry_failed', 'payment.retry_scheduled'],
    };
  }
  // Soft retries exhausted, or a decline only the customer can fix: dunning takes over.
  return { payment: { ...failed, status: 'communication_pending', next_retry_at: null }, customer, nextAttemptAt: null, events: ['payment.retry_failed'] };
}
