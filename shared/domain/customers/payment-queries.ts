import { findCustomer, getCustomer } from '../../store/customers.ts';
import { eventsOfCustomer } from '../../store/events.ts';
import { queryPayments } from '../../store/payment-lists.ts';
import { getPayment } from '../../store/payments.ts';
import type { Customer } from '../../model/customer.ts';
import type { ServiceEvent } from '../../model/events.ts';
import { createdWindow, type ListRequest, type ListResult } from '../../model/listing.ts';
import { slicePage, type PageRequest } from '../../model/pagination.ts';
import { PAYMENT_HISTORY_TYPES, type Payment, type PaymentFilters, type PaymentSort } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';

/** The list parameters as a request states them: the creation window as the two timestamps. */
export interface PaymentListParams extends Omit<PaymentFilters, 'created'>, ListRequest<PaymentSort> {
  created_after?: string;
  created_before?: string;
}

/** GET /v1/payments (§4.3). */
export function listPayments(tenant: Tenant, params: PaymentListParams): Promise<ListResult<Payment>> {
  const { created_after, created_before, sort, order, page, per_page, ...filters } = params;
  return queryPayments(tenant, { sort, order, page, per_page, filters: { ...filters, created: createdWindow(created_after, created_before) } });
}

/** GET /v1/payments/{id}: the payment with its customer (null once the customer was erased). */
export async function paymentWithCustomer(tenant: Tenant, paymentId: string): Promise<{ payment: Payment; customer: Customer | null }> {
  const payment = await getPayment(tenant, paymentId);
  const customer = payment.customer_id === null ? undefined : await findCustomer(tenant, payment.customer_id);
  return { payment, customer: customer ?? null };
}

/** GET /v1/customers/{id}/payments (§4.2): 404 for an unknown customer, not an empty list. */
export async function listCustomerPayments(
  tenant: Tenant,
  customerId: string,
  params: ListRequest<PaymentSort> & Pick<PaymentFilters, 'status'>,
): Promise<ListResult<Payment>> {
  const { status, sort, order, page, per_page } = params;
  // The customer and the page are read together; the page is dropped when the customer is missing.
  const [, payments] = await Promise.all([getCustomer(tenant, customerId), queryPayments(tenant, { sort, order, page, per_page, filters: { status, customer_id: customerId } })]);
  return payments;
}

type HistoryEvent = ServiceEvent<(typeof PAYMENT_HISTORY_TYPES)[number]>;

const isHistoryEvent = (event: ServiceEvent): event is HistoryEvent => (PAYMENT_HISTORY_TYPES as readonly string[]).includes(event.type);

const isAbout = (event: ServiceEvent, paymentId: string): boolean =>
  isHistoryEvent(event) && (event.type === 'campaign.message_sent' ? event.data.payment_id : event.data.id) === paymentId;

/**
 * GET /v1/payments/{id}/events: the payment's history as the events webhooks delivered about it,
 * oldest first: its failure, retries scheduled and declined, dunning messages, recovery or end.
 * None once its customer was erased (the events were anonymised and unlinked from the person).
 */
export async function paymentHistory(tenant: Tenant, paymentId: string, page: PageRequest): Promise<ListResult<ServiceEvent>> {
  const payment = await getPayment(tenant, paymentId);
  if (payment.customer_id === null) return { items: [], total: 0 };
  const events = (await eventsOfCustomer(tenant, payment.customer_id)).filter((event) => isAbout(event, paymentId));
  return { items: slicePage(events, page), total: events.length };
}
