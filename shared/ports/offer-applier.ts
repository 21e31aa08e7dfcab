import type { OfferConfig } from '../model/cancel-flow-steps.ts';
import type { Tenant } from '../model/tenant.ts';
import type { ProcessorCredentials } from '../model/processor-connection.ts';

/**
 * Applying the retention offer a subscriber accepted in a cancel flow (a discount, a pause, a
 * downgrade, more trial days) to their subscription at the payment processor. Stripe in live mode
 * through its REST API; simulated for test mode and the local server; processors we cannot apply offers
 * at answer `manual` so the merchant applies it.
 */
export interface OfferRequest {
  tenant: Tenant;
  psp: string;
  /**
   * The merchant's credentials for that processor (none without a connection; its API key is what
   * applies the offer). They are stored sealed and this opens them: only an adapter that calls the processor asks.
   */
  credentials: () => Promise<ProcessorCredentials | undefined>;
  pspCustomerId: string;
  pspSubscriptionId: string;
  offer: OfferConfig;
  /** Stable per completion (the session id), so a repeated application changes the subscription once. */
  idempotencyKey: string;
}

export type OfferOutcome =
  | { status: 'applied'; reference: string | null }
  /** The service cannot apply it here (no API key, unsupported processor or offer): the merchant must. */
  | { status: 'manual'; reason: string }
  /** The processor refused or did not answer; `reason` carries its answer. */
  | { status: 'failed'; reason: string };

export interface OfferApplier {
  apply(request: OfferRequest): Promise<OfferOutcome>;
}
