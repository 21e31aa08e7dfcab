import type { NetworkAnswer } from '../model/card-ledger.ts';
import type { Payment } from '../model/payment.ts';
import type { Tenant } from '../model/tenant.ts';
import type { ProcessorCredentials } from '../model/processor-connection.ts';

/**
 * Charging a failed payment again at its processor. Stripe and Braintree in live mode through their
 * APIs; a deterministic sandbox for test-mode keys and for the local server (docs/testing.md).
 */
export interface RetryRequest {
  tenant: Tenant;
  /**
   * The merchant's credentials for the payment's processor (none without a connection). They are
   * stored sealed and this opens them: only an adapter that calls the processor asks.
   */
  credentials: () => Promise<ProcessorCredentials | undefined>;
  payment: Payment;
  /** 1-based attempt number. */
  attempt: number;
  /** Sent to the processor so a repeated call for the same attempt charges at most once. */
  idempotencyKey: string;
  /** The customer's current card, as the sandbox decides outcomes by its last four digits. */
  cardLastFour: string | null;
}

export type RetryOutcome =
  | { outcome: 'succeeded' }
  | { outcome: 'declined'; declineCode: string | null; network?: NetworkAnswer | null }
  /** No verdict yet: the processor errored, timed out, cannot be reached or is still processing; asking again later may get one. */
  | { outcome: 'no_answer'; reason: string }
  /**
   * The processor will not charge this payment however often it is asked, until someone acts:
   * the customer (no payment method to charge, a processor we cannot charge through) or the merchant
   * (no API credentials, credentials refused, a request the processor rejects).
   */
  | { outcome: 'refused'; reason: string; awaits: 'customer' | 'merchant' }
  /** Nothing is left to collect: the invoice was voided or written off, the charge or subscription canceled, or the customer erased. */
  | { outcome: 'closed'; reason: string };

export interface PaymentProcessor {
  retry(request: RetryRequest): Promise<RetryOutcome>;
}

