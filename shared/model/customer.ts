import type { ListRequest, TimeWindow } from './listing.ts';
import type { PaymentMethodSnapshot } from './processor-event.ts';

/** §2.3. Stored and served in the spec's own field names. */
export const CUSTOMER_STATUSES = ['active', 'recovered', 'churned'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export interface Subscription {
  id: string;
  psp_subscription_id: string;
  plan: string | null;
  amount: number | null;
  currency: string | null;
  status: string | null;
  current_period_end: string | null;
  /** When a processor last described it (internal): processors' events arrive in any order. */
  described_at?: string;
}

/**
 * Statuses of a subscription that has ended for good, in any sender's spelling and case: Stripe's
 * `canceled` and `incomplete_expired`, Braintree's `Canceled` and `Expired` (stored before its
 * statuses were normalized), a generic sender's `cancelled`.
 */
const ENDED = new Set(['canceled', 'cancelled', 'expired', 'incomplete_expired']);

export const hasEnded = (subscription: Pick<Subscription, 'status'>): boolean =>
  subscription.status !== null && ENDED.has(subscription.status.toLowerCase());

export interface PaymentMethod {
  type: string;
  brand: string | null;
  last_four: string | null;
  exp_month: number | null;
  exp_year: number | null;
  /** The processor's stable id for the card number: the card network ledger's key (model/card-ledger.ts). */
  fingerprint?: string | null;
}

export interface Customer {
  id: string;
  email: string | null;
  name: string | null;
  psp: string;
  psp_customer_id: string;
  status: CustomerStatus;
  total_payments: number;
  /** Payments still awaiting recovery (pending, retrying, communication_pending). */
  failed_payments: number;
  recovered_payments: number;
  terminal_payments: number;
  /** Recovered amounts per currency: amounts are never summed across currencies. */
  recovered_amounts: Record<string, number>;
  /** The currency the customer is billed in (their latest payment's). */
  primary_currency: string | null;
  subscriptions: Subscription[];
  payment_method: PaymentMethod | null;
  timezone: string | null;
  country: string | null;
  /** E.164, for sms steps; from the processor when it has one. */
  phone: string | null;
  /**
   * When the processor reported the details and card above (its event's time, or ours for a card the
   * customer saved on the update page): an event older than this changes neither. Absent on customers
   * written before it was kept.
   */
  details_reported_at?: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/**
 * §3.3: churned when every subscription has ended (canceled); active while any payment awaits recovery;
 * recovered once nothing is open and something was won back; otherwise active (see decisions.md).
 */
export function customerStatus(customer: Pick<Customer, 'subscriptions' | 'failed_payments' | 'recovered_payments'>): CustomerStatus {
  const subscriptions = customer.subscriptions;
  if (subscriptions.length > 0 && subscriptions.every(hasEnded)) return 'churned';
  if (customer.failed_payments > 0) return 'active';
  if (customer.recovered_payments > 0) return 'recovered';
  return 'active';
}

/** Months as one number (year × 12 + month − 1), so windows are integer ranges. */
export const monthIndex = (at: Date): number => at.getUTCFullYear() * 12 + at.getUTCMonth();
export const monthKey = (index: number): string => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;

/** The card's expiry month as a month index, or null when the card has no usable expiry. */
export function cardExpiryMonth(card: PaymentMethod | null): number | null {
  if (!card || card.exp_month === null || card.exp_year === null) return null;
  if (!Number.isInteger(card.exp_month) || card.exp_month < 1 || card.exp_month > 12 || !Number.isInteger(card.exp_year)) return null;
  return card.exp_year * 12 + card.exp_month - 1;
}

/** A card is valid through the last day of its expiry month: the first moment it is not (UTC: a day's slack either way is harmless). */
export function cardInvalidFrom(card: PaymentMethod | null): Date | null {
  const month = cardExpiryMonth(card);
  return month === null ? null : new Date(Date.UTC(Math.floor(month / 12), (month % 12) + 1, 1));
}

/** An ended subscription no longer renews, nor does a paused one while it is paused. */
export const renews = (subscription: Pick<Subscription, 'status'>): boolean =>
  subscription.status === null || !(hasEnded(subscription) || subscription.status.toLowerCase() === 'paused');

/**
 * Customers a calendar trigger could ever enroll: a card with an expiry, a subscription that renews,
 * and no payment awaiting recovery (that failure's own sequence is already talking to them; the daily
 * scan picks them up once it is settled). The calendar index holds exactly these.
 */
export function calendarCandidate(customer: Pick<Customer, 'payment_method' | 'subscriptions' | 'failed_payments'>): boolean {
  return cardExpiryMonth(customer.payment_method) !== null && customer.failed_payments === 0 && customer.subscriptions.some(renews);
}

export function toPaymentMethod(snapshot: PaymentMethodSnapshot): PaymentMethod {
  return {
    type: snapshot.type,
    brand: snapshot.brand,
    last_four: snapshot.lastFour,
    exp_month: snapshot.expMonth,
    exp_year: snapshot.expYear,
    ...(snapshot.fingerprint ? { fingerprint: snapshot.fingerprint } : {}),
  };
}

export function totalRecovered(customer: Pick<Customer, 'recovered_amounts' | 'primary_currency'>): { amount: number; currency: string | null } {
  const currency = customer.primary_currency;
  return { amount: currency === null ? 0 : (customer.recovered_amounts[currency] ?? 0), currency };
}

/** GET /v1/customers (§4.2). */
export const CUSTOMER_SORTS = ['created_at', 'name', 'email', 'total_recovered'] as const;
export type CustomerSort = (typeof CUSTOMER_SORTS)[number];

export interface CustomerFilters {
  /** Words, each the start of a word of the name or of a part of the email, any case or accents (model/customer-search.ts). */
  query?: string;
  status?: CustomerStatus;
  psp?: string;
  has_failed_payment?: boolean;
  created?: TimeWindow;
}

export interface CustomerListRequest extends ListRequest<CustomerSort> {
  filters: CustomerFilters;
}
