import { paymentResource } from '../../representations/payment.ts';
import { recategorizedEventData } from '../../representations/payment-events.ts';
import { isOpen, type Payment } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';
import { newEvent, type ServiceEvent } from '../../model/events.ts';

/**
 * An open payment moved to another category (a retry declined with another code, a code arriving for
 * a payment recorded without one): the internal event analytics moves its failure with.
 */
export function recategorization(tenant: Tenant, before: Payment, after: Payment, now: Date): ServiceEvent[] {
  return after.decline_category === before.decline_category ? [] : [newEvent(tenant, 'payment.recategorized', recategorizedEventData(before, after), now)];
}

/**
 * What a code arriving late for a recorded payment decided, announced as every other path announces
 * it: a terminal end, or a retry scheduled. (A retry's outcome names its own events: applyOutcome.)
 */
export function lateOutcomeEvents(tenant: Tenant, before: Payment, after: Payment, now: Date): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  if (isOpen(before.status) && after.status === 'terminal') events.push(newEvent(tenant, 'payment.terminal', paymentResource(after), now));
  if (before.next_retry_at === null && after.next_retry_at !== null) events.push(newEvent(tenant, 'payment.retry_scheduled', paymentResource(after), now));
  return events;
}
