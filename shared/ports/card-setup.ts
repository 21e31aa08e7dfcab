import type { PaymentMethod } from '../model/customer.ts';
import type { ProcessorCredentials } from '../model/processor-connection.ts';
import type { Tenant } from '../model/tenant.ts';

/**
 * A customer giving a new card at the merchant's processor in live mode, so card data never touches
 * our functions (PCI DSS SAQ A): Stripe Checkout in setup mode, Braintree's Drop-in UI. Test mode
 * never comes here: the sandbox's own form does (shared/model/test-cards.ts).
 */
export interface CardSetupRequest {
  tenant: Tenant;
  psp: string;
  /** The merchant's credentials for the processor, opened only by an adapter that calls it. */
  credentials: () => Promise<ProcessorCredentials | undefined>;
  pspCustomerId: string;
  /** The subscription the failure is for, whose payment method the new card becomes. */
  pspSubscriptionId: string | null;
}

export type CardSetupStart =
  /** Stripe: send the browser to the processor's hosted page. */
  | { kind: 'redirect'; url: string; reference: string }
  /** Braintree: the page runs the Drop-in UI with this client token. */
  | { kind: 'drop_in'; clientToken: string };

export interface CardSetup {
  start(request: CardSetupRequest & { returnUrl: string; cancelUrl: string; idempotencyKey: string; metadata: Record<string, string> }): Promise<CardSetupStart>;
  /**
   * Makes the card the customer gave the default of the customer and of the subscription: Stripe by
   * the Checkout Session (or its SetupIntent) id, Braintree by the Drop-in's nonce, vaulted first.
   * Returns the card as it is now on file.
   */
  complete(request: CardSetupRequest & { proof: string }): Promise<PaymentMethod>;
}

/** The processor refused or could not be reached; the page says so and offers to try again. */
export class CardSetupFailed extends Error {
  constructor(
    message: string,
    /** A decline the customer can act on (another card), as opposed to the service's or merchant's problem. */
    readonly customerCanRetry: boolean,
    /** The processor could not answer now (rate limited, its error, no connection): the same request may succeed later. */
    readonly transient = false,
  ) {
    super(message);
    this.name = 'CardSetupFailed';
  }
}
