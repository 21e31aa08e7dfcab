import { queryCustomers } from '../../store/customer-lists.ts';
import { getCustomer } from '../../store/customers.ts';
import { paymentsOfCustomer } from '../../store/payments.ts';
import type { Customer, CustomerFilters, CustomerSort } from '../../model/customer.ts';
import { createdWindow, type ListRequest, type ListResult } from '../../model/listing.ts';
import { isOpen, type Payment } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';

export interface CustomerListParams extends Omit<CustomerFilters, 'created'>, ListRequest<CustomerSort> {
  created_after?: string;
  created_before?: string;
}

/** GET /v1/customers (§4.2). */
export function listCustomers(tenant: Tenant, params: CustomerListParams): Promise<ListResult<Customer>> {
  const { created_after, created_before, sort, order, page, per_page, ...filters } = params;
  return queryCustomers(tenant, { sort, order, page, per_page, filters: { ...filters, created: createdWindow(created_after, created_before) } });
}

/** §2.3 recovery_summary. */
export interface RecoverySummary {
  total_failures: number;
  total_recovered: number;
  total_terminal: number;
  total_pending: number;
  recovery_rate: number;
  total_recovered_amount: number;
  currency: string | null;
}

/**
 * Counted from the customer's payments themselves, not from counters kept beside them, so it cannot
 * drift from what GET /v1/customers/{id}/payments shows. Amounts are in the currency of the latest
 * payment (the customer's billing currency), never summed across currencies; the rate is recovered
 * over all failures.
 */
export function recoverySummary(payments: readonly Payment[]): RecoverySummary {
  const latest = payments.reduce<Payment | undefined>((newest, payment) => (!newest || payment.id > newest.id ? payment : newest), undefined);
  const currency = latest?.currency ?? null;
  const recovered = payments.filter((payment) => payment.status === 'recovered');
  const total = payments.length;
  return {
    total_failures: total,
    total_recovered: recovered.length,
    total_terminal: payments.filter((payment) => payment.status === 'terminal').length,
    total_pending: payments.filter((payment) => isOpen(payment.status)).length,
    recovery_rate: total === 0 ? 0 : Math.round((recovered.length / total) * 10_000) / 10_000,
    total_recovered_amount: recovered.filter((payment) => payment.currency === currency).reduce((sum, payment) => sum + payment.amount, 0),
    currency,
  };
}

/** GET /v1/customers/{id}: the customer and their recovery summary, read together. */
export async function customerWithSummary(tenant: Tenant, customerId: string): Promise<{ customer: Customer; summary: RecoverySummary }> {
  const [customer, payments] = await Promise.all([getCustomer(tenant, customerId), paymentsOfCustomer(tenant, customerId)]);
  return { customer, summary: recoverySummary(payments) };
}
