import { findCustomer, saveCustomerWrites } from '../../store/customers.ts';
import { recordEventWrite } from '../../store/events.ts';
import { getMerchant } from '../../store/merchants.ts';
import { findPayment, getPayment, paymentChangeWrites } from '../../store/payments.ts';
import { findConnectionForPsp } from '../../store/processor-connections.ts';
import { transact, type TransactItem } from '../../store/transactions.ts';
import { countRecoveryAttemptWrite, returnRecoveryAttemptWrite } from '../../store/usage.ts';
import { findCardLedger, recordOnCardWrite, saveCardLedgerWrite } from '../../store/card-ledgers.ts';
import { customerListItem } from '../../representations/customer.ts';
import { paymentResource } from '../../representations/payment.ts';
import { recoveredEventData } from '../../representations/payment-events.ts';
import type { RetryOutcome } from '../../ports/payment-processor.ts';
import type { Ports } from '../../ports/ports.ts';
import { BACKGROUND_WRITE, LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { lockTimeout, ServiceError, stateConflict } from '../../model/errors.ts';
import { withStatus } from '../ingestion/failure-accounting.ts';
import type { NetworkHold, Payment } from '../../model/payment.ts';
import type { Customer } from '../../model/customer.ts';
import { recategorization } from '../ingestion/payment-change-events.ts';
import { PLANS } from '../../model/plans.ts';
import { credentialsOnDemand } from '../ingestion/processor-credentials.ts';
import { retryJobId } from './recovery-routing.ts';
import { applyOutcome, attemptAfterSettlement, canStartRetry, claimAttempt, type RetryTrigger } from './retry-outcomes.ts';
import type { Tenant } from '../../model/tenant.ts';
import { newEvent } from '../../model/events.ts';
import { blocksFromAnswer, cardOnFile, judgeAttempt, withAttempt, type CardOnFile } from './network-guard.ts';
import { heedNetworkAnswer, networkHeldEvent } from './network-holds.ts';
import { nextRetryAt } from './retry-policy.ts';

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

/** A card network rule forbids charging the payment's card now (domain/declines/network-rules.ts). */
export class NetworkRetryLimit extends ServiceError {
  constructor(readonly hold: NetworkHold) {
    const when = hold.next_allowed_at === null ? 'until the customer updates the card' : `until ${hold.next_allowed_at}`;
    super(
      'network_retry_limit',
      `${hold.description} (rule ${hold.rule}, rules ${hold.rules_version}): the card may not be charged ${when}.`,
      undefined,
      { rule: hold.rule, next_allowed_at: hold.next_allowed_at },
    );
  }
}

/** Claims on one card racing (several payments of one customer): the losers read the card's ledger again and are judged again. */
const CLAIMING: ContentionPolicy = {
  write: 'retry-claim',
  attempts: 12,
  backoff: MERCHANT_WRITE,
  exhausted: () => lockTimeout('Too many attempts on this card at once: retry shortly.'),
};

/**
 * Claims the next attempt of a payment: one conditional transaction moves it to retrying, increments
 * retry_count, counts the attempt against the month's plan limit and on the card's network ledger
 * (docs/retry-policy.md, "Card network rules"), so of any number of concurrent claims (a manual retry,
 * a scheduled one, a second runner, another payment on the same card) none passes a limit. The
 * attempt's watchdog is armed before this returns.
 */
export async function claimRetry(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, paymentId: string, trigger: RetryTrigger, now: Date, read?: Payment): Promise<Payment> {
  const claimed = await claimUnwatched(tenant, paymentId, trigger, now, { read });
  await armWatchdog(ports, tenant, claimed, now);
  return claimed;
}

/** The card the payment's customer pays with now; none once the customer was erased. */
async function paymentCard(tenant: Tenant, payment: Payment): Promise<{ card: CardOnFile; customer: Customer | undefined } | undefined> {
  if (payment.customer_id === null) return undefined;
  const customer = await findCustomer(tenant, payment.customer_id);
  return { card: cardOnFile(payment.customer_id, customer?.payment_method), customer };
}

/**
 * The claim itself; its caller arms the watchdog, beside whatever else it does next. A caller that
 * has just read the payment (`read`) spares the first round its read: the claim's version condition
 * catches any change since, as it catches one since a read of its own.
 */
async function claimUnwatched(tenant: Tenant, paymentId: string, trigger: RetryTrigger, now: Date, { claimKey, read }: { claimKey?: string; read?: Payment } = {}): Promise<Payment> {
  return writeOptimistically(CLAIMING, async (round) => {
    const [payment, merchant] = await Promise.all([round === 0 && read ? read : getPayment(tenant, paymentId), getMerchant(tenant.merchantId)]);
    // The same request sent again after its claim committed but its answer was an error: its own claim, not a conflict.
    if (claimKey !== undefined && payment.status === 'retrying' && payment.retry_claim_key === claimKey) return payment;
    if (!canStartRetry(payment, trigger)) {
      throw stateConflict(`Payment '${payment.id}' cannot be retried: its status is '${payment.status}'.`);
    }
    const charged = await paymentCard(tenant, payment);
    const ledger = charged && (await findCardLedger(tenant, charged.card.identity));
    if (charged && ledger) {
      // Every attempt we make retries a declined payment at the merchant's initiative: a reattempt.
      const verdict = judgeAttempt({ ledger, network: charged.card.network, cardExpiry: charged.card.expiry, initiator: 'merchant', at: now });
      if (!verdict.allowed) throw new NetworkRetryLimit(verdict.hold);
    }
    const limit = PLANS[merchant.plan].recoveryAttemptsPerMonth;
    const claimed = claimAttempt(payment, now, trigger, claimKey);
    const paymentWrites = paymentChangeWrites(tenant, payment, claimed);
    const ledgerWrites = charged && ledger ? [saveCardLedgerWrite(tenant, charged.card.identity, charged.card.customerId, withAttempt(ledger, 'merchant', now), now)] : [];
    const result = await transact([...paymentWrites, countRecoveryAttemptWrite(tenant, now, limit), ...ledgerWrites]);
    if (result.committed) return claimed;
    if (result.failedConditions.includes(paymentWrites.length)) throw new AttemptLimitReached(limit);
    // Another attempt on the card (or a reported failure) changed its ledger, or a transaction clashed: judge again.
    if (result.failedConditions.length === 0 || result.failedConditions.includes(paymentWrites.length + 1)) return LOST;
    const current = await getPayment(tenant, paymentId);
    throw stateConflict(`Payment '${current.id}' cannot be retried: its status is '${current.status}'.`);
  });
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
  outcome: 'stale' | 'limit_reached' | 'network_held' | RetryOutcome['outcome'];
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
  const payment = job.watchdog
    ? await unreportedAttempt(tenant, job, clock)
    : job.claimed
      ? await claimedAttempt(ports, tenant, job, clock)
      : await scheduledAttempt(ports, tenant, job, clock);
  if ('outcome' in payment) return payment;
  const customerId = payment.customer_id;
  if (customerId === null) {
    // Anonymised (its customer erased) between the claim and now: the attempt is never made (given
    // back), and the payment ends as erasure ended the others (applyOutcome).
    await recordOutcome(ports, tenant, payment, { outcome: 'closed', reason: 'The customer was erased' }, job.trigger, clock);
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
  // The trigger the attempt was claimed under: a watchdog finishing a manual attempt records it as manual.
  return recordOutcome(ports, tenant, payment, outcome, payment.retry_trigger ?? job.trigger, clock);
}

/**
 * The watchdog's run: the attempt never reported back (a crashed runner, or a job whose every try
 * failed after the charge, waiting in the dead letters). Giving it back would schedule it again and
 * announce it, and the redriven job would then make it a second time (the processor's idempotency key
 * answers it the same, but the events say twice). Instead the watchdog makes the attempt itself under
 * its key: a processor that already answered it answers the same (its record of our earlier call),
 * one that never got it is charged now, one that does not answer gives it back (no_answer), as before.
 */
async function unreportedAttempt(tenant: Tenant, job: AttemptJob, clock: () => Date): Promise<Payment | AttemptReport> {
  const payment = await findPayment(tenant, job.paymentId);
  if (!payment) return { outcome: 'stale', payment_id: job.paymentId };
  if (payment.status === 'retrying' && payment.retry_count === job.attempt) return payment;
  // Settled meanwhile without it (a processor webhook): an attempt that never reported is given back.
  return settledMeanwhile(tenant, payment, job.attempt, { outcome: 'no_answer', reason: `No answer within ${ATTEMPT_WATCHDOG_MINUTES} minutes` }, clock());
}

type AttemptJob = Parameters<typeof runRetryAttempt>[2];

/** The payment an attempt claimed elsewhere (a manual retry) runs on, or the report when it moved on meanwhile. */
async function claimedAttempt(ports: RetryPorts, tenant: Tenant, job: AttemptJob, clock: () => Date): Promise<Payment | AttemptReport> {
  const payment = await findPayment(tenant, job.paymentId);
  if (!payment) return { outcome: 'stale', payment_id: job.paymentId };
  if (payment.status === 'retrying' && payment.retry_count === job.attempt) return payment;
  await finishRecordedAttempt(ports, tenant, payment, job.attempt);
  return settledMeanwhile(tenant, payment, job.attempt, undefined, clock());
}

/**
 * A scheduled attempt claims the payment, or finds its own claim (or outcome) from an earlier run of
 * this job that failed after it (the scheduler throttled), and goes on from there.
 */
async function scheduledAttempt(ports: RetryPorts, tenant: Tenant, job: AttemptJob, clock: () => Date): Promise<Payment | AttemptReport> {
  const current = await findPayment(tenant, job.paymentId);
  const stale: AttemptReport = { outcome: 'stale', payment_id: job.paymentId };
  if (!current) return stale;
  if (current.retry_count === job.attempt) {
    if (current.status === 'retrying' && current.retry_trigger === job.trigger) {
      await armWatchdog(ports, tenant, current, clock());
      return current;
    }
    await finishRecordedAttempt(ports, tenant, current, job.attempt);
    return stale;
  }
  if (current.status !== 'pending' || current.retry_count + 1 !== job.attempt) return stale;
  try {
    return await claimRetry(ports, tenant, job.paymentId, job.trigger, clock(), current);
  } catch (error) {
    if (error instanceof AttemptLimitReached) return handOverAtLimit(tenant, current, clock);
    if (error instanceof NetworkRetryLimit) return holdBack(ports, tenant, current, error.hold, clock);
    if (error instanceof ServiceError && error.code === 'state_conflict') return stale;
    throw error;
  }
}

/**
 * Records the answer of the attempt made on `ran` (the payment as claimed). The first round writes
 * over `ran` without reading it again: its version condition fails if anything (a processor webhook)
 * changed the payment during the call, and the next round reads what did.
 */
async function recordOutcome(
  ports: RetryPorts,
  tenant: Tenant,
  ran: Payment,
  outcome: Parameters<typeof applyOutcome>[0]['outcome'],
  trigger: RetryTrigger,
  clock: () => Date,
): Promise<AttemptReport> {
  const { id: paymentId, retry_count: attempt } = ran;
  return writeOptimistically(RECORDING, async (round) => {
    const now = clock();
    const payment = round === 0 ? ran : await getPayment(tenant, paymentId);
    // A processor webhook may have settled the payment while the attempt ran; it then counted the recovery.
    if (payment.status !== 'retrying' || payment.retry_count !== attempt) return settledMeanwhile(tenant, payment, attempt, outcome, now);
    const charged = await paymentCard(tenant, payment);
    const customer = charged?.customer;
    const timeZone = customer?.timezone ?? null;
    const answered = applyOutcome({ payment, customer, outcome, trigger, now, timeZone });
    // The network's own answer may forbid what the processor's code allows: its blocks go on the card's ledger.
    const blocks = outcome.outcome === 'declined' && charged ? blocksFromAnswer(charged.card.network, outcome.network ?? null, charged.card.expiry, now) : [];
    const result = heedNetworkAnswer(answered, outcome.outcome === 'declined' ? (outcome.network ?? null) : null, blocks, now, timeZone);
    const writes: TransactItem[] = [...paymentChangeWrites(tenant, payment, result.payment), ...usageGivenBack(tenant, payment, result.payment, now)];
    if (charged && blocks.length > 0) writes.push(recordOnCardWrite(tenant, charged.card.identity, charged.card.customerId, { buckets: [], blocks }, now));
    // An outcome that leaves the customer as read (a soft re-decline, retries running out) writes nothing of
    // theirs: the rewrite cost about ten write units with its four index entries, and guarded no invariant.
    if (customer && result.customer && result.customer !== customer) writes.push(...saveCustomerWrites(tenant, result.customer, customer.version));
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
    if (result.payment.network_hold && result.payment.network_hold !== payment.network_hold) writes.push(recordEventWrite(tenant, networkHeldEvent(tenant, result.payment, now)));
    if (!(await transact(writes)).committed) return LOST;
    await finishRecordedAttempt(ports, tenant, result.payment, attempt);
    const reason = 'reason' in outcome ? outcome.reason : undefined;
    return { outcome: outcome.outcome, payment_id: paymentId, status: result.payment.status, psp: payment.psp, ...(reason === undefined ? {} : { reason }) };
  });
}

/**
 * What follows an attempt's recorded outcome: its watchdog cancelled, the next attempt scheduled.
 * Also run by a job delivered again after its run stored the outcome and failed before this (the
 * scheduler throttled): job ids are stable, so doing it twice is harmless, and skipping it would
 * leave the payment waiting for a retry nobody scheduled.
 */
async function finishRecordedAttempt(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, payment: Payment, attempt: number): Promise<void> {
  // The attempt after the payment's current count (the same attempt again when this one was given back).
  const next = payment.status === 'pending' && payment.next_retry_at !== null ? new Date(payment.next_retry_at) : undefined;
  await Promise.all([ports.scheduler.cancel(watchdogJobId(payment.id, attempt)), next ? scheduleAttempt(ports, tenant, payment, next) : undefined]);
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
 * A scheduled attempt a card network rule forbids now does not run and is not counted: the payment
 * waits for the time the rule allows (placed by the retry policy, so never in the customer's night),
 * or, when only a card update can lift the rule, goes to the customer (dunning) as a hard decline would.
 */
async function holdBack(ports: Pick<Ports, 'scheduler'>, tenant: Tenant, read: Payment, hold: NetworkHold, clock: () => Date): Promise<AttemptReport> {
  return writeOptimistically(RECORDING, async (round) => {
    const payment = round === 0 ? read : await findPayment(tenant, read.id);
    if (!payment || payment.status !== 'pending') return { outcome: 'stale', payment_id: read.id };
    const now = clock();
    const customer = payment.customer_id === null ? undefined : await findCustomer(tenant, payment.customer_id);
    const touched = { ...payment, network_hold: hold, updated_at: now.toISOString(), version: payment.version + 1 };
    const next: Payment =
      hold.next_allowed_at === null
        ? { ...touched, status: 'communication_pending', next_retry_at: null, customer_action: 'Update payment method' }
        : {
            ...touched,
            next_retry_at: nextRetryAt({
              failedAt: new Date(hold.next_allowed_at),
              cooldownHours: 0,
              subcategory: payment.decline_subcategory ?? 'Generic',
              timeZone: customer?.timezone ?? null,
            }).toISOString(),
          };
    const writes: TransactItem[] = [
      ...paymentChangeWrites(tenant, payment, next),
      recordEventWrite(tenant, networkHeldEvent(tenant, next, now)),
      recordEventWrite(tenant, newEvent(tenant, next.status === 'pending' ? 'payment.retry_scheduled' : 'payment.retry_failed', paymentResource(next), now)),
    ];
    if (customer && next.status !== 'pending') writes.push(...saveCustomerWrites(tenant, withStatus(customer, now), customer.version));
    if (!(await transact(writes)).committed) return LOST;
    if (next.next_retry_at !== null) await scheduleAttempt(ports, tenant, next, new Date(next.next_retry_at));
    return { outcome: 'network_held', payment_id: payment.id, status: next.status, reason: `${hold.rule}: ${hold.next_allowed_at ?? 'until the card is updated'}` };
  });
}

/**
 * POST /v1/payments/{id}/retry (manual), or a new card from the card-update page: claims the next
 * attempt now, through the one claim every attempt goes through, and hands it to the retry job. A
 * request's `claimKey` (its Idempotency-Key) marks the claim: the request sent again after a failure
 * past the claim finds it and finishes the hand-off instead of answering 409.
 */
export async function retryPaymentNow(
  ports: Pick<Ports, 'scheduler'>,
  tenant: Tenant,
  paymentId: string,
  now: Date,
  trigger: Exclude<RetryTrigger, 'automatic'> = 'manual',
  claimKey?: string,
): Promise<Payment> {
  const claimed = await claimUnwatched(tenant, paymentId, trigger, now, { claimKey });
  // Independent calls, made together: the watchdog, the scheduled attempt this one replaces, the run now.
  await Promise.all([
    armWatchdog(ports, tenant, claimed, now),
    ports.scheduler.cancel(retryJobId(claimed.id, claimed.retry_count)),
    dispatchClaimedAttempt(ports, tenant, claimed, trigger, now),
  ]);
  return claimed;
}
