import { newEvent, type ServiceEvent } from '../store/events.ts';
import { paymentResource } from '../representations/payment.ts';
import { recategorizedEventData } from '../representations/payment-events.ts';
import { isOpen, type Payment } from './payments.ts';
import type { Tenant } from './tenant.ts';

/**
 * The events a change of an open payment's classification implies (a retry declined with another
 * code, a code arriving for a payment recorded without one): analytics moves its failure to the new
 * category (internal). With `announce` (the change has no outcome events of its own, as a retry's
 * has), one that became terminal or got a retry scheduled says so, as every other path does.
 */
export function reclassificationEvents(tenant: Tenant, before: Payment, after: Payment, now: Date, options: { announce: boolean }): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  if (after.decline_category !== before.decline_category) events.push(newEvent(tenant, 'payment.recategorized', recategorizedEventData(before, after), now));
  if (!options.announce) return events;
  if (isOpen(before.status) && after.status === 'terminal') events.push(newEvent(tenant, 'payment.terminal', paymentResource(after), now));
  if (before.next_retry_at === null && after.next_retry_at !== null) events.push(newEvent(tenant, 'payment.retry_scheduled', paymentResource(after), now));
  return events;
}
