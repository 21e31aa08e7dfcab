import type { Payment } from '../domain/payments.ts';
import type { Tenant } from '../domain/tenant.ts';
import type { ProcessorConnection } from '../store/processor-connections.ts';

/**
 * Charging a failed payment again at its processor. Stripe and Braintree in live mode through their
 * APIs; a deterministic sandbox for test-mode keys and for the local server (docs/testing.md).
 */
export interface RetryRequest {
  tenant: Tenant;
  /** The merchant's connection to the payment's processor, when there is one. */
  connection: ProcessorConnection | undefined;
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
  | { outcome: 'declined'; declineCode: string | null }
  /** No verdict: the processor errored, timed out or cannot be reached; `retryable` says whether trying again later is safe. */
  | { outcome: 'no_answer'; reason: string; retryable: boolean };

export interface PaymentProcessor {
  retry(request: RetryRequest): Promise<RetryOutcome>;
}
