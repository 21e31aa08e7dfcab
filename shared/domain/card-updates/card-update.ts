import { log } from '../../log.ts';
import type { CardUpdateLink } from '../../model/card-update-link.ts';
import { sameCard } from '../../model/enrollment.ts';
import type { Customer, PaymentMethod } from '../../model/customer.ts';
import { ServiceError } from '../../model/errors.ts';
import { newEvent } from '../../model/events.ts';
import type { Payment } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { Ports } from '../../ports/ports.ts';
import { customerListItem } from '../../representations/customer.ts';
import { findCampaignVersion } from '../../store/campaigns.ts';
import { getCustomer, saveCustomerWrites } from '../../store/customers.ts';
import { enrollmentsOf } from '../../store/enrollments.ts';
import { recordEventWrite } from '../../store/events.ts';
import { paymentsOfCustomer } from '../../store/payments.ts';
import { transact } from '../../store/transactions.ts';
import { BACKGROUND_WRITE, LOST, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { finish } from '../dunning/dunning.ts';
import { retryPaymentNow } from '../retries/retry-execution.ts';
import { linkEvent } from './update-links.ts';

/**
 * What a new card does (from the test-mode form, Stripe Checkout, or Braintree's Drop-in): the
 * customer's payment method changes and merchants are told (customer.payment_method_updated); the
 * sequences that stop on a card update stop; and every open failure of the customer is retried at
 * once, through the same claim as any attempt (its plan limit and guards apply), credited to
 * `card_update` when it succeeds.
 */
export type CardUpdatePorts = Pick<Ports, 'scheduler'>;

/** The customer's record racing ingestion or a retry's bookkeeping: read again and decide again. */
const RECORDING: ContentionPolicy = { write: 'card_update', attempts: 6, backoff: BACKGROUND_WRITE };

export interface CardUpdateReport {
  customer: Customer;
  /** Open failures whose retry was started now. */
  retried: Payment[];
  /** Open failures that could not be retried now, and why (the month's attempts used up, an attempt already running). */
  notRetried: { payment_id: string; reason: string }[];
}

async function saveCard(tenant: Tenant, customerId: string, card: PaymentMethod, link: CardUpdateLink | null, now: Date): Promise<Customer> {
  return writeOptimistically(RECORDING, async () => {
    const customer = await getCustomer(tenant, customerId);
    // The same card again (Stripe's event and its return page both report one checkout): nothing changed.
    if (sameCard(customer.payment_method, card)) return customer;
    // Stamped with our time: a processor event from before the customer saved it cannot bring the old card back.
    const next: Customer = { ...customer, payment_method: card, details_reported_at: now.toISOString(), updated_at: now.toISOString(), version: customer.version + 1 };
    const updated = newEvent(tenant, 'customer.payment_method_updated', { ...customerListItem(next), payment_method: card, source: 'card_update_page' }, now);
    const writes = [...saveCustomerWrites(tenant, next, customer.version), recordEventWrite(tenant, updated)];
    if (link) writes.push(recordEventWrite(tenant, linkEvent(tenant, 'card_update.completed', link, now)));
    return (await transact(writes)).committed ? next : LOST;
  });
}

/** Ends the customer's running sequences that stop on a card update (stop_on_card_update): the new card is what they asked for. */
async function stopSequences(ports: CardUpdatePorts, tenant: Tenant, customer: Customer, now: Date): Promise<void> {
  for (const enrollment of await enrollmentsOf(tenant, customer.id)) {
    if (enrollment.status !== 'active' || enrollment.calendar || sameCard(enrollment.card_at_enrollment, customer.payment_method)) continue;
    const version = await findCampaignVersion(tenant, enrollment.campaign_id, enrollment.campaign_version);
    if (version?.stop_conditions.stop_on_card_update === false) continue;
    // Lost to a step or a recovery that moved it first: that one ended or advanced it; the next step stops it.
    await finish(ports, tenant, enrollment, 'stopped', 'card_updated', now);
  }
}

export async function recordCardUpdate(
  ports: CardUpdatePorts,
  tenant: Tenant,
  customerId: string,
  card: PaymentMethod,
  link: CardUpdateLink | null,
  now: Date,
): Promise<CardUpdateReport> {
  const customer = await saveCard(tenant, customerId, card, link, now);
  await stopSequences(ports, tenant, customer, now);
  const open = (await paymentsOfCustomer(tenant, customer.id)).filter((payment) => payment.status === 'pending' || payment.status === 'communication_pending');
  const retried: Payment[] = [];
  const notRetried: CardUpdateReport['notRetried'] = [];
  for (const payment of open) {
    try {
      retried.push(await retryPaymentNow(ports, tenant, payment.id, now, 'card_update'));
    } catch (error) {
      // The claim's refusals (the plan's monthly attempts, a status changed meanwhile): the card is
      // saved all the same, and the payment's own schedule or the next message takes it from here.
      if (!(error instanceof ServiceError)) throw error;
      notRetried.push({ payment_id: payment.id, reason: error.message });
      log.info('card update: payment not retried', { payment_id: payment.id, code: error.code });
    }
  }
  return { customer, retried, notRetried };
}
