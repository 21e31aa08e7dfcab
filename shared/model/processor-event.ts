import type { NetworkAnswer } from './card-ledger.ts';
import { ServiceError } from './errors.ts';

/**
 * What the service understands of a processor webhook, whatever the processor. Each processor's
 * receiver verifies its signature and turns its native payload into one of these; ingestion only
 * ever sees this shape.
 */
export interface CustomerSnapshot {
  pspCustomerId: string;
  email: string | null;
  name: string | null;
  /** IANA zone when the processor knows it (used to place retries outside the customer's night). */
  timezone: string | null;
  /** ISO 3166-1 alpha-2, when known (fallback for the timezone). */
  country: string | null;
  /** E.164, when the processor has one (needed for sms steps). */
  phone: string | null;
}

export interface SubscriptionSnapshot {
  pspSubscriptionId: string;
  plan: string | null;
  amount: number | null;
  currency: string | null;
  status: string | null;
  /** ISO 8601 UTC. */
  currentPeriodEnd: string | null;
  /** When the processor described it so (its event's time; ISO 8601): an older description never replaces a newer one. */
  describedAt?: string;
}

export interface PaymentMethodSnapshot {
  type: string;
  brand: string | null;
  lastFour: string | null;
  expMonth: number | null;
  expYear: number | null;
  /** The processor's stable id for the card number, when it gives one (the card network rules count per card). */
  fingerprint?: string | null;
}

export interface FailedCharge {
  /** The processor's id for the payment shown to merchants (psp_payment_id). */
  pspPaymentId: string;
  /**
   * Every processor id that names this same charge (e.g. Stripe's payment intent, charge and invoice),
   * so the several events a processor sends for one failure become one payment.
   */
  references: string[];
  /** Smallest currency unit. */
  amount: number;
  /** ISO 4217, lowercase. */
  currency: string;
  /** The raw decline code, as §2.6 looks it up; null when the processor gave none. */
  declineCode: string | null;
  /** The card network's own answer, when the processor passes it on (domain/declines/network-rules.ts). */
  network?: NetworkAnswer | null;
}

interface EventBase {
  /** The processor's event id (for de-duplication and audit). */
  eventId: string;
  /** When the processor says it happened, ISO 8601 UTC. */
  occurredAt: string;
}

export type ProcessorEvent =
  | (EventBase & {
      kind: 'payment_failed';
      customer: CustomerSnapshot;
      subscription: SubscriptionSnapshot | null;
      payment: FailedCharge;
      paymentMethod: PaymentMethodSnapshot | null;
    })
  | (EventBase & {
      kind: 'payment_succeeded';
      customer: CustomerSnapshot;
      subscription: SubscriptionSnapshot | null;
      /** Ids that may name the earlier failed charge (payment intent, invoice, subscription charge). */
      references: string[];
      amount: number | null;
      currency: string | null;
    })
  | (EventBase & {
      kind: 'subscription_canceled';
      customer: CustomerSnapshot;
      subscription: SubscriptionSnapshot;
    })
  | (EventBase & {
      /** The subscription as it now stands (status, plan, price, period): a renewal, a pause, past due and back. */
      kind: 'subscription_updated';
      customer: CustomerSnapshot;
      subscription: SubscriptionSnapshot;
    })
  | (EventBase & {
      kind: 'payment_method_updated';
      customer: CustomerSnapshot;
      paymentMethod: PaymentMethodSnapshot;
    })
  | (EventBase & {
      /** A card saved at the processor by a session our card-update page started, named by the session's metadata. */
      kind: 'card_setup_completed';
      /** What the processor completes it by (a Checkout Session's or SetupIntent's id). */
      proof: string;
      merchantId: string;
      environment: string;
      customerId: string;
      linkId: string;
    })
  | (EventBase & { kind: 'ignored'; type: string });

/** Why a webhook was refused (bad or stale signature, malformed payload): 400, nothing stored. */
export class WebhookRejected extends ServiceError {
  constructor(message: string) {
    super('invalid_request', message);
    this.name = 'WebhookRejected';
  }
}
