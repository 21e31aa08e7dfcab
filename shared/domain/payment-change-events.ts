import { newEvent, type ServiceEvent } from '../store/events.ts';
import { paymentResource } from '../representations/payment.ts';
import { recategorizedEventData } from '../representations/payment-events.ts';
import { isOpen, type Payment } from './payments.ts';
import type { Tenant } from './tenant.ts';

/**
 * The events a change of an open payment's classification implies (a retry declined with another
 * code, a code arriving for a payment recorded without one): analytics moves its failure to the new
 * category (internal), and one that became terminal is announced as any terminal outcome is.
 */
export function reclassificationEvents(tenant: Tenant, before: Payment, after: Payment, now: Date, options: { announceTerminal: boolean }): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  if (after.decline_category !== before.decline_category) events.push(newEvent(tenant, 'payment.recategorized', recategorizedEventData(before, after), now));
  if (options.announceTerminal && isOpen(before.status) && after.status === 'terminal') events.push(newEvent(tenant, 'payment.terminal', paymentResource(after), now));
  return events;
}
