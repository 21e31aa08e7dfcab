/**
 * Live retries at Braintree through its gateway API (braintree-gateway.ts): the past-due
 * subscription's charge is retried (the package's `subscription.retryCharge`, a sale submitted for
 * settlement), with the merchant's own API keys.
 *
 * Braintree has no idempotency keys: every retryCharge that reaches it is a new sale. A request
 * whose answer is lost (a timeout, a dropped connection, a 5xx after the sale was made) may
 * therefore have charged the customer, and sending it again could charge twice. So the adapter never
 * repeats a sale itself, and every attempt first reads the subscription: a successful transaction
 * for the failed billing period means the charge already went through (a previous attempt whose
 * answer was lost, Braintree's own retry, or the merchant), and the answer is succeeded without
 * charging; a subscription that is no longer Past Due has nothing left to retry. What remains is a
 * charge landing between that read and the sale: another attempt of ours cannot, as the runner claims
 * each attempt with a conditional write, but Braintree's own scheduled retry or the merchant could,
 * and when the sale repeats the same amount on the same card Braintree's duplicate check (when the
 * merchant has it on) rejects it.
 */
import type { Payment } from '../../model/payment.ts';
import { reportedNetworkAnswer } from '../../model/card-ledger.ts';
import type { PaymentProcessor, RetryOutcome } from '../../ports/payment-processor.ts';
import { toDecimalString } from '../../model/money.ts';
import { subscriptionReference } from '../../processors/braintree-references.ts';
import {
  BRAINTREE_PRODUCTION,
  BRAINTREE_SANDBOX,
  BraintreeGatewayError,
  createBraintreeGateway,
  type BraintreeGatewayAddress,
  type BraintreeSaleResult,
  type BraintreeTransaction,
} from './braintree-gateway.ts';
import { withinDeadline } from './retry-deadline.ts';

export interface BraintreeProcessorOptions {
  /** Where the gateway is, for a local fake of the Braintree API in tests; by default from the tenant's environment. */
  environmentOverride?: BraintreeGatewayAddress;
  /**
   * Bound on one retry() call (it makes at most two requests); also each request's own timeout.
   * When it passes the answer is no_answer, asked again later (default 10 s).
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

const SUCCEEDED: RetryOutcome = { outcome: 'succeeded' };
const NO_KEYS: RetryOutcome = { outcome: 'refused', awaits: 'merchant', reason: 'No Braintree API keys on the connection: live retries are off' };

/** Transaction statuses that mean the money was (or is being) collected. */
const COLLECTED = new Set<string>([
  'authorizing',
  'authorized',
  'submitted_for_settlement',
  'settlement_pending',
  'settling',
  'settled',
  'settlement_confirmed',
]);

export function createBraintreeProcessor(options: BraintreeProcessorOptions = {}): PaymentProcessor {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    async retry(request) {
      const { payment } = request;
      const credentials = await request.credentials();
      if (credentials?.kind !== 'braintree') return NO_KEYS;
      const subscriptionId = payment.psp_subscription_id;
      if (!subscriptionId) {
        return {
          outcome: 'refused',
          awaits: 'customer',
          reason: `Braintree transaction ${payment.psp_payment_id} belongs to no subscription: only subscription charges can be retried`,
        };
      }
      const address = options.environmentOverride ?? (request.tenant.environment === 'live' ? BRAINTREE_PRODUCTION : BRAINTREE_SANDBOX);
      const gateway = createBraintreeGateway(address, credentials, timeoutMs);
      return withinDeadline('Braintree', timeoutMs, async (ensureInTime) => {
        try {
          const subscription = await gateway.findSubscription(subscriptionId);
          const periodStart = failedPeriodStart(payment, subscriptionId);
          if (subscription.transactions.some((transaction) => COLLECTED.has(transaction.status) && settles(transaction, periodStart, payment))) {
            return SUCCEEDED;
          }
          if (subscription.status !== 'Past Due') {
            // Canceled or expired, or brought current without a charge for the period (a balance the
            // merchant cleared): the failed charge is no longer owed.
            return {
              outcome: 'closed',
              reason: `Braintree subscription ${subscriptionId} is ${subscription.status}, not Past Due: there is no failed charge to retry`,
            };
          }
          ensureInTime();
          const result = await gateway.retryCharge(subscriptionId, toDecimalString(payment.amount, payment.currency));
          return saleOutcome(result);
        } catch (error) {
          return outcomeOfError(error);
        }
      });
    },
  };
}

/** The billing period the failure belongs to, from the `sub:<id>:<period start>` reference ingestion stores. */
function failedPeriodStart(payment: Payment, subscriptionId: string): string | null {
  const prefix = subscriptionReference(subscriptionId, '');
  const reference = payment.psp_references.find((value) => value.startsWith(prefix) && value.length > prefix.length);
  return reference ? reference.slice(prefix.length) : null;
}

/** Whether a collected transaction paid the failed period; without the period, any charge after the failure was recorded. */
function settles(transaction: BraintreeTransaction, periodStart: string | null, payment: Payment): boolean {
  if (periodStart !== null) return transaction.subscription?.billingPeriodStartDate === periodStart;
  const at = Date.parse(transaction.createdAt ?? '');
  return !Number.isNaN(at) && at >= Date.parse(payment.created_at);
}

function saleOutcome(result: BraintreeSaleResult): RetryOutcome {
  if (result.success) return SUCCEEDED;
  const transaction = result.transaction;
  switch (transaction?.status) {
    case 'processor_declined':
    case 'settlement_declined':
      return {
        outcome: 'declined',
        declineCode: transaction.processorResponseCode || transaction.processorSettlementResponseCode || null,
        ...reportedNetworkAnswer(transaction.networkResponseCode, transaction.merchantAdviceCode),
      };
    case 'gateway_rejected': {
      const reason = transaction.gatewayRejectionReason;
      if (reason === 'duplicate') {
        // Braintree's duplicate check matched a recent identical sale, which may be a charge whose
        // answer was lost: the next attempt's look at the subscription settles it.
        return { outcome: 'no_answer', reason: 'Braintree rejected the charge as a duplicate of a recent one' };
      }
      return { outcome: 'declined', declineCode: transaction.processorResponseCode || (reason ? `gateway_rejected:${reason}` : null) };
    }
    case 'failed':
      return {
        outcome: 'no_answer',
        reason: `Braintree could not reach the card processor: ${transaction.processorResponseCode ?? ''} ${transaction.processorResponseText ?? ''}`.trim(),
      };
  }
  // Validation errors (such as 91531, the subscription is not Past Due): the same request would fail again.
  const errors = result.errors.map((error) => `${error.code} ${error.message}`);
  return { outcome: 'refused', awaits: 'merchant', reason: `Braintree refused the retry: ${errors.length ? errors.join('; ') : result.message}` };
}

function outcomeOfError(error: unknown): RetryOutcome {
  if (!(error instanceof BraintreeGatewayError)) throw error;
  const reason = `Braintree ${error.kind}: ${error.message}`;
  // Authentication, authorization, not found and upgrade required would get the same answer later.
  return error.retryable ? { outcome: 'no_answer', reason } : { outcome: 'refused', awaits: 'merchant', reason };
}
