import { findCustomer, saveCustomerWrites } from '../../store/customers.ts';
import { recordEventWrite } from '../../store/events.ts';
import { getMerchant } from '../../store/merchants.ts';
import { findPayment, getPayment, paymentChangeWrites } from '../../store/payments.ts';
import { findConnectionForPsp } from '../../store/processor-connections.ts';
import { transact, type TransactItem } from '../../store/transactions.ts';
import { countRecoveryAttemptWrite, returnRecoveryAttemptWrite } from '../../store/usage.ts';
import { customerListItem } from '../../representations/customer.ts';
import { paymentResource } from '../../representations/payment.ts';
import { recoveredEventData } from '../../representations/payment-events.ts';
import type { RetryOutcome } from '../../ports/payment-processor.ts';
import type { Ports } from '../../ports/ports.ts';
import { BACKGROUND_WRITE, LOST, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { ServiceError, stateConflict } from '../../model/errors.ts';
import { withStatus } from '../ingestion/failure-accounting.ts';
import type { Payment } from '../../model/payment.ts';
import { recategorization } from '../ingestion/payment-change-events.ts';
import { PLANS } from '../../model/plans.ts';
import { credentialsOnDemand } from '../ingestion/processor-credentials.ts';
import { retryJobId } from './recovery-routing.ts';
import { applyOutcome, attemptAfterSettlement, canStartRetry, claimAttempt, type RetryTrigger } from './retry-outcomes.ts';
import type { Tenant } from '../../model/tenant.ts';
import { newEvent } from '../../model/events.ts';

/** A retry schedules its attempts and their watchdogs, and charges through the payment's processor. */
export type RetryPorts = Pick<Ports, 'scheduler' | 'paymentProcessor' | 'keyVault'>;

/** The payment or its customer changing under an attempt's bookkeeping (a webhook, ingestion) is read again; the job is retried past this. */
const RECORDING: ContentionPolicy = { write: 'retry', attempts: 6, backoff: BACKGROUND_WRITE };

/**
 * An attempt still unanswered after this long is given back (the sweeper): longer than any processor
 * call may take (10 s timeout, SDK retries) and the job's own Lambda timeout, so a live call is never cut short.
 */
export const ATTEMPT_WATCHDOG_MINUTES = 15;
const watchdogJobId = (paymentId: string, attempt: number): string => `${retryJobId(paymentId, attempt)}-watchdog`;

async function armWatchdog(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, payment: Payment, now: Date): Promise<void> {
  await ports.scheduler.schedule({
    id: watchdogJobId(payment.id, payment.retry_count),
    kind: 'payment-retry',
    runAt: new Date(now.getTime() + ATTEMPT_WATCHDOG_MINUTES * 60_000),
    tenant,
    payload: { payment_id: payment.id, attempt: payment.retry_count, trigger: 'automatic', claimed: true, watchdog: true },
  });
}

export class AttemptLimitReached extends ServiceError {
  constructor(limit: number) {
    super(
      'recovery_attempt_limit_exceeded',
      `This month's ${limit} recovery attempts are used up. Upgrade the plan, or wait until the 1st of next month (UTC).`,
    );
  }
}

/**
 * Claims the next attempt of a payment: one conditional transaction moves it to retrying, increments
 * retry_count and counts the attempt against the month's plan limit, so of any number of concurrent
 * claims (a manual retry, a scheduled one, a second runner) exactly one wins. The attempt's watchdog
 * is armed before this returns.
 */
export async function claimRetry(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, paymentId: string, trigger: RetryTrigger, now: Date): Promise<Payment> {
  const claimed = await claimUnwatched(tenant, paymentId, trigger, now);
  await armWatchdog(ports, tenant, claimed, now);
  return claimed;
}

/** The claim itself; its caller arms the watchdog, beside whatever else it does next. */
async function claimUnwatched(tenant: Tenant, paymentId: string, trigger: RetryTrigger, now: Date): Promise<Payment> {
  const [payment, merchant] = await Promise.all([getPayment(tenant, paymentId), getMerchant(tenant.merchantId)]);
  if (!canStartRetry(payment, trigger)) {
    throw stateConflict(`Payment '${payment.id}' cannot be retried: its status is '${payment.status}'.`);
  }
  const limit = PLANS[merchant.plan].recoveryAttemptsPerMonth;
  const claimed = claimAttempt(payment, now, trigger);
  const paymentWrites = paymentChangeWrites(tenant, payment, claimed);
  const result = await transact([...paymentWrites, countRecoveryAttemptWrite(tenant, now, limit)]);
  if (result.committed) return claimed;
  if (result.failedConditions.includes(paymentWrites.length)) throw new AttemptLimitReached(limit);
  const current = await getPayment(tenant, paymentId);
  throw stateConflict(`Payment '${current.id}' cannot be retried: its status is '${current.status}'.`);
}

/** Queues the claimed attempt to run now (the processor call happens in the retry job, not in the request). */
async function dispatchClaimedAttempt(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, payment: Payment, trigger: RetryTrigger, now: Date): Promise<void> {
  await ports.scheduler.schedule({
    id: `${retryJobId(payment.id, payment.retry_count)}-run`,
    kind: 'payment-retry',
    runAt: now,
    tenant,
    payload: { payment_id: payment.id, attempt: payment.retry_count, trigger, claimed: true },
  });
}

async function scheduleAttempt(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, payment: Payment, at: Date): Promise<void> {
  const attempt = payment.retry_count + 1;
  await ports.scheduler.schedule({
    id: retryJobId(payment.id, attempt),
    kind: 'payment-retry',
    runAt: at,
    tenant,
    payload: { payment_id: payment.id, attempt, trigger: 'automatic', claimed: false },
  });
}

export interface AttemptReport {
  outcome: 'stale' | 'limit_reached' | RetryOutcome['outcome'];
  payment_id: string;
  status?: Payment['status'];
  /** The payment's processor, when the attempt reached it and its answer was recorded. */
  psp?: string;
  /** Why an attempt charged nothing (no answer, refused, nothing to collect), as the processor adapter put it: the job's log line carries it. */
  reason?: string;
}

/**
 * Runs one attempt: claims it first unless the caller already did, asks the processor, and records
 * the answer. A job that finds the payment moved on (recovered by a webhook, claimed by someone
 * else, superseded attempt) does nothing.
 */
export async function runRetryAttempt(
  ports: RetryPorts,
  tenant: Tenant,
  job: { paymentId: string; attempt: number; trigger: RetryTrigger; claimed: boolean; watchdog?: boolean },
  clock: () => Date,
): Promise<AttemptReport> {
  if (job.watchdog) {
    // The attempt never reported back (a crashed runner, a lost answer): give it back for a later try.
    const reason = `No answer within ${ATTEMPT_WATCHDOG_MINUTES} minutes`;
    return recordOutcome(ports, tenant, job.paymentId, job.attempt, { outcome: 'no_answer', reason }, job.trigger, clock);
  }
  let payment: Payment | undefined;
  if (job.claimed) {
    payment = await findPayment(tenant, job.paymentId);
    if (!payment) return { outcome: 'stale', payment_id: job.paymentId };
    if (payment.status !== 'retrying' || payment.retry_count !== job.attempt) return settledMeanwhile(tenant, payment, job.attempt, undefined, clock());
  } else {
    const current = await findPayment(tenant, job.paymentId);
    if (!current || current.status !== 'pending' || current.retry_count + 1 !== job.attempt) return { outcome: 'stale', payment_id: job.paymentId };
    try {
      payment = await claimRetry(ports, tenant, job.paymentId, job.trigger, clock());
    } catch (error) {
      if (error instanceof AttemptLimitReached) return handOverAtLimit(tenant, current, clock);
      if (error instanceof ServiceError && error.code === 'state_conflict') return { outcome: 'stale', payment_id: job.paymentId };
      throw error;
    }
  }
  const customerId = payment.customer_id;
  if (customerId === null) {
    // Anonymised (its customer erased) between the claim and now: the attempt is never made (given
    // back), and the payment ends as erasure ended the others (applyOutcome).
    await recordOutcome(ports, tenant, payment.id, payment.retry_count, { outcome: 'closed', reason: 'The customer was erased' }, job.trigger, clock);
    return { outcome: 'stale', payment_id: payment.id, status: 'terminal' };
  }
  const [connection, customer] = await Promise.all([findConnectionForPsp(tenant, payment.psp), findCustomer(tenant, customerId)]);
  const outcome = await ports.paymentProcessor.retry({
    tenant,
    credentials: credentialsOnDemand(ports.keyVault, connection),
    payment,
    attempt: payment.retry_count,
    idempotencyKey: retryJobId(payment.id, payment.retry_count),
    cardLastFour: customer?.payment_method?.last_four ?? null,
  });
  return recordOutcome(ports, tenant, payment.id, payment.retry_count, outcome, job.trigger, clock);
}

async function recordOutcome(
  ports: RetryPorts,
  tenant: Tenant,
  paymentId: string,
  attempt: number,
  outcome: Parameters<typeof applyOutcome>[0]['outcome'],
  trigger: RetryTrigger,
  clock: () => Date,
): Promise<AttemptReport> {
  return writeOptimistically(RECORDING, async () => {
    const now = clock();
    const payment = await getPayment(tenant, paymentId);
    // A processor webhook may have settled the payment while the attempt ran; it then counted the recovery.
    if (payment.status !== 'retrying' || payment.retry_count !== attempt) return settledMeanwhile(tenant, payment, attempt, outcome, now);
    const customer = payment.customer_id === null ? undefined : await findCustomer(tenant, payment.customer_id);
    const result = applyOutcome({
      payment,
      customer,
      outcome,
      trigger,
      now,
      timeZone: customer?.timezone ?? null,
    });
    const writes: TransactItem[] = [...paymentChangeWrites(tenant, payment, result.payment), ...usageGivenBack(tenant, payment, result.payment, now)];
    if (customer && result.customer) writes.push(...saveCustomerWrites(tenant, result.customer, customer.version));
    for (const event of recategorization(tenant, payment, result.payment, now)) writes.push(recordEventWrite(tenant, event));
    for (const type of result.events) {
      const data =
        type === 'customer.retained' && result.customer
          ? customerListItem(result.customer)
          : type === 'payment.recovered'
            ? recoveredEventData(result.payment)
            : paymentResource(result.payment);
      writes.push(recordEventWrite(tenant, newEvent(tenant, type, data, now)));
    }
    if (!(await transact(writes)).committed) return LOST;
    const nextAttemptAt = result.nextAttemptAt;
    await Promise.all([
      ports.scheduler.cancel(watchdogJobId(paymentId, attempt)),
      nextAttemptAt ? scheduleAttempt(ports, tenant, result.payment, nextAttemptAt) : undefined,
    ]);
    const reason = 'reason' in outcome ? outcome.reason : undefined;
    return { outcome: outcome.outcome, payment_id: paymentId, status: result.payment.status, psp: payment.psp, ...(reason === undefined ? {} : { reason }) };
  });
}

/** The attempt's bookkeeping once its payment was settled without it (attemptAfterSettlement); a concurrent change wins. */
async function settledMeanwhile(
  tenant: Tenant,
  payment: Payment,
  attempt: number,
  outcome: Parameters<typeof attemptAfterSettlement>[2],
  now: Date,
): Promise<AttemptReport> {
  const next = attemptAfterSettlement(payment, attempt, outcome, now);
  if (next) await transact([...paymentChangeWrites(tenant, payment, next), ...usageGivenBack(tenant, payment, next, now)]);
  return { outcome: 'stale', payment_id: payment.id, status: payment.status };
}

/** An attempt the change hands back (retry_count went down) returns to the plan's monthly count it was claimed under. */
function usageGivenBack(tenant: Tenant, before: Payment, after: Payment, now: Date): TransactItem[] {
  if (after.retry_count >= before.retry_count) return [];
  return [returnRecoveryAttemptWrite(tenant, before.retry_initiated_at ? new Date(before.retry_initiated_at) : now)];
}

/**
 * Over the month's limit, a scheduled retry cannot run: the customer is asked to act instead, with
 * the event retries running out send, so dunning (soft_decline campaigns) takes the payment over.
 */
async function handOverAtLimit(tenant: Tenant, read: Payment, clock: () => Date): Promise<AttemptReport> {
  // The customer (or the payment) may change under us, as ingestion moves them: read again and retry.
  return writeOptimistically(RECORDING, async (round) => {
    const payment = round === 0 ? read : await findPayment(tenant, read.id);
    if (!payment || payment.status !== 'pending') return { outcome: 'stale', payment_id: read.id };
    const now = clock();
    const next: Payment = { ...payment, status: 'communication_pending', next_retry_at: null, updated_at: now.toISOString(), version: payment.version + 1 };
    const customer = payment.customer_id === null ? undefined : await findCustomer(tenant, payment.customer_id);
    const writes: TransactItem[] = [
      ...paymentChangeWrites(tenant, payment, next),
      recordEventWrite(tenant, newEvent(tenant, 'payment.retry_failed', paymentResource(next), now)),
    ];
    if (customer) writes.push(...saveCustomerWrites(tenant, withStatus(customer, now), customer.version));
    if (!(await transact(writes)).committed) return LOST;
    return { outcome: 'limit_reached', payment_id: payment.id, status: next.status };
  });
}

/**
 * POST /v1/payments/{id}/retry (manual), or a new card from the card-update page: claims the next
 * attempt now, through the one claim every attempt goes through, and hands it to the retry job.
 */
export async function retryPaymentNow(
  ports: Pick<Ports, 'scheduler'>,
  tenant: Tenant,
  paymentId: string,
  now: Date,
  trigger: Exclude<RetryTrigger, 'automatic'> = 'manual',
): Promise<Payment> {
  const claimed = await claimUnwatched(tenant, paymentId, trigger, now);
  // Independent calls, made together: the watchdog, the scheduled attempt this one replaces, the run now.
  await Promise.all([
    armWatchdog(ports, tenant, claimed, now),
    ports.scheduler.cancel(retryJobId(claimed.id, claimed.retry_count)),
    dispatchClaimedAttempt(ports, tenant, claimed, trigger, now),
  ]);
  return claimed;
}
