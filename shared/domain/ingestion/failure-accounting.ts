import { isDeepStrictEqual } from 'node:util';
import { newId } from '../../ids.ts';
import { nextRetryAt } from '../retries/retry-policy.ts';
import { classifyDecline, type DeclineClassification } from '../declines/decline-classification.ts';
import { customerStatus, hasEnded, type Customer, type PaymentMethod, type Subscription } from '../../model/customer.ts';
import { isOpen, type Payment, type PaymentStatus, type RecoveryChannel } from '../../model/payment.ts';
import type { CustomerSnapshot, FailedCharge, SubscriptionSnapshot } from '../../model/processor-event.ts';

/**
 * Pure bookkeeping for what a processor reports: the payment a failure creates, and how payments and
 * customers change on failure, recovery and cancellation. Ingestion persists what these return.
 */

/** §3.2 / issue routing: where a freshly classified failure starts. */
export function initialStatus(classification: DeclineClassification): PaymentStatus {
  if (classification.category === 'terminal') return 'terminal';
  if (classification.category === 'soft_retry') return 'pending';
  return 'communication_pending';
}

export function newPayment(input: {
  psp: string;
  charge: FailedCharge;
  customerId: string;
  subscription: Subscription | null;
  /** The customer's zone, so the first retry avoids their night. */
  timeZone: string | null;
  now: Date;
}): Payment {
  const { psp, charge, customerId, subscription, now } = input;
  const classification = classifyDecline(psp, charge.declineCode);
  const status = initialStatus(classification);
  const at = now.toISOString();
  return {
    id: newId('pay', now),
    customer_id: customerId,
    subscription_id: subscription?.id ?? null,
    amount: charge.amount,
    currency: charge.currency.toLowerCase(),
    status,
    decline_code: charge.declineCode,
    decline_category: classification.category,
    decline_subcategory: classification.subcategory,
    psp,
    psp_payment_id: charge.pspPaymentId,
    retry_count: 0,
    max_retries: classification.maxRetries,
    next_retry_at:
      status === 'pending' && classification.cooldownHours !== null
        ? nextRetryAt({ failedAt: now, cooldownHours: classification.cooldownHours, subcategory: classification.subcategory, timeZone: input.timeZone }).toISOString()
        : null,
    recovered_at: null,
    created_at: at,
    updated_at: at,
    mapping_version: classification.mappingVersion,
    customer_action: classification.customerAction,
    cooldown_hours: classification.cooldownHours,
    psp_subscription_id: subscription?.psp_subscription_id ?? null,
    psp_references: [...new Set([charge.pspPaymentId, ...charge.references])],
    retry_initiated_at: null,
    consecutive_no_answers: 0,
    retries: [],
    recovery_channel: null,
    version: 1,
  };
}

/**
 * A failure first recorded without a decline code is unknown; when a sibling event brings the code
 * before anything was attempted, the payment is classified again so it takes the right route.
 */
export function reclassify(payment: Payment, declineCode: string, timeZone: string | null, now: Date): Payment | undefined {
  if (payment.decline_code !== null || payment.status !== 'communication_pending' || payment.retry_count > 0) return undefined;
  const reclassified = newPayment({
    psp: payment.psp,
    charge: { pspPaymentId: payment.psp_payment_id, references: [], amount: payment.amount, currency: payment.currency, declineCode },
    customerId: payment.customer_id ?? '',
    subscription: null,
    timeZone,
    now,
  });
  return {
    ...payment,
    status: reclassified.status,
    decline_code: declineCode,
    decline_category: reclassified.decline_category,
    decline_subcategory: reclassified.decline_subcategory,
    max_retries: reclassified.max_retries,
    next_retry_at: reclassified.next_retry_at,
    mapping_version: reclassified.mapping_version,
    customer_action: reclassified.customer_action,
    cooldown_hours: reclassified.cooldown_hours,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

/**
 * A subscription as a processor event describes it, over what was known. Processors deliver events in
 * any order, so a description older than the one stored only fills what that one left unknown, and
 * an ended subscription stays ended whatever a late event says (processors never revive one).
 */
function mergeSubscription(subscriptions: Subscription[], snapshot: SubscriptionSnapshot, now: Date): { list: Subscription[]; subscription: Subscription } {
  const existing = subscriptions.find((s) => s.psp_subscription_id === snapshot.pspSubscriptionId);
  const older = existing?.described_at !== undefined && snapshot.describedAt !== undefined && snapshot.describedAt < existing.described_at;
  const pick = <T>(described: T | null, known: T | null | undefined): T | null => (older ? (known ?? described) : (described ?? known ?? null));
  const keepsEnded = existing !== undefined && hasEnded(existing) && !hasEnded(snapshot);
  const describedAt = older ? existing?.described_at : (snapshot.describedAt ?? existing?.described_at);
  const subscription: Subscription = {
    id: existing?.id ?? newId('sub', now),
    psp_subscription_id: snapshot.pspSubscriptionId,
    plan: pick(snapshot.plan, existing?.plan),
    amount: pick(snapshot.amount, existing?.amount),
    currency: pick(snapshot.currency?.toLowerCase() ?? null, existing?.currency),
    status: keepsEnded ? existing.status : pick(snapshot.status, existing?.status),
    current_period_end: pick(snapshot.currentPeriodEnd, existing?.current_period_end),
    ...(describedAt === undefined ? {} : { described_at: describedAt }),
  };
  return { list: [...subscriptions.filter((s) => s !== existing), subscription], subscription };
}

export function newCustomer(psp: string, snapshot: CustomerSnapshot, now: Date): Customer {
  const at = now.toISOString();
  return {
    id: newId('cus', now),
    email: snapshot.email,
    name: snapshot.name,
    psp,
    psp_customer_id: snapshot.pspCustomerId,
    status: 'active',
    total_payments: 0,
    failed_payments: 0,
    recovered_payments: 0,
    terminal_payments: 0,
    recovered_amounts: {},
    primary_currency: null,
    subscriptions: [],
    payment_method: null,
    timezone: snapshot.timezone,
    country: snapshot.country,
    phone: snapshot.phone,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** Whether details reported at `reportedAt` are as new as those the customer holds (processors deliver events out of order). */
export const reportsNewerDetails = (customer: Customer, reportedAt: string): boolean =>
  customer.details_reported_at === undefined || Date.parse(reportedAt) >= Date.parse(customer.details_reported_at);

/**
 * The customer's details and card as the processor reported them at `reportedAt` (only what it actually
 * sent replaces what we have), unless a newer event's already did: a late or resent older event cannot
 * bring back an old email or card. The report's time is kept only when a detail changed, so an event
 * that changes nothing writes nothing. Subscriptions merge by their own rules.
 */
export function refreshCustomer(customer: Customer, snapshot: CustomerSnapshot, subscription: SubscriptionSnapshot | null, now: Date, reportedAt: string, paymentMethod?: PaymentMethod) {
  const merged = subscription ? mergeSubscription(customer.subscriptions, subscription, now) : undefined;
  const subscriptions = merged?.list ?? customer.subscriptions;
  if (!reportsNewerDetails(customer, reportedAt)) return { customer: { ...customer, subscriptions }, subscription: merged?.subscription ?? null };
  const details = {
    email: snapshot.email ?? customer.email,
    name: snapshot.name ?? customer.name,
    timezone: snapshot.timezone ?? customer.timezone,
    country: snapshot.country ?? customer.country,
    phone: snapshot.phone ?? customer.phone ?? null,
    payment_method: paymentMethod ?? customer.payment_method,
  };
  const changed = (Object.keys(details) as (keyof typeof details)[]).some((field) => !isDeepStrictEqual(details[field], customer[field]));
  const refreshed: Customer = { ...customer, ...details, subscriptions, ...(changed ? { details_reported_at: reportedAt } : {}) };
  return { customer: refreshed, subscription: merged?.subscription ?? null };
}

export function withStatus(customer: Customer, now: Date): Customer {
  return { ...customer, status: customerStatus(customer), updated_at: now.toISOString(), version: customer.version + 1 };
}

export function countFailure(customer: Customer, payment: Payment, now: Date): Customer {
  return withStatus(
    {
      ...customer,
      total_payments: customer.total_payments + 1,
      failed_payments: customer.failed_payments + (isOpen(payment.status) ? 1 : 0),
      terminal_payments: customer.terminal_payments + (payment.status === 'terminal' ? 1 : 0),
      primary_currency: payment.currency,
    },
    now,
  );
}

/** The customer's counts once one of their open payments ends terminal. */
export function countTerminal(customer: Customer): Customer {
  return { ...customer, failed_payments: Math.max(0, customer.failed_payments - 1), terminal_payments: customer.terminal_payments + 1 };
}

export function recoverPayment(payment: Payment, channel: RecoveryChannel, now: Date): Payment {
  const at = now.toISOString();
  return { ...payment, status: 'recovered', recovered_at: at, next_retry_at: null, recovery_channel: channel, updated_at: at, version: payment.version + 1 };
}

/** `from`: what the payment was before it came back, an open failure or (paid after all) a terminal one. */
export function countRecovery(customer: Customer, payment: Payment, now: Date, from: 'open' | 'terminal' = 'open'): Customer {
  return withStatus(
    {
      ...customer,
      failed_payments: from === 'open' ? Math.max(0, customer.failed_payments - 1) : customer.failed_payments,
      terminal_payments: from === 'terminal' ? Math.max(0, customer.terminal_payments - 1) : customer.terminal_payments,
      recovered_payments: customer.recovered_payments + 1,
      recovered_amounts: { ...customer.recovered_amounts, [payment.currency]: (customer.recovered_amounts[payment.currency] ?? 0) + payment.amount },
    },
    now,
  );
}

/** The customer with one subscription as the processor now describes it, or undefined when that changes nothing. */
export function updateSubscription(customer: Customer, snapshot: SubscriptionSnapshot, now: Date): Customer | undefined {
  const current = customer.subscriptions.find((subscription) => subscription.psp_subscription_id === snapshot.pspSubscriptionId);
  const { list, subscription } = mergeSubscription(customer.subscriptions, snapshot, now);
  if (current && isDeepStrictEqual(current, subscription)) return undefined;
  return withStatus({ ...customer, subscriptions: list }, now);
}

/** A cancellation ends the subscription whenever it was sent: nothing after it can be newer in effect. */
export function cancelSubscription(customer: Customer, snapshot: SubscriptionSnapshot, now: Date): Customer {
  const { list, subscription } = mergeSubscription(customer.subscriptions, snapshot, now);
  subscription.status = 'canceled';
  return withStatus({ ...customer, subscriptions: list }, now);
}
