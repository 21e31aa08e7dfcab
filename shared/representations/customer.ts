import { totalRecovered, type Customer } from '../model/customer.ts';
import type { RecoverySummary } from '../domain/customers/customer-queries.ts';
import type { CustomerDetail, CustomerListItem } from './schemas/customer.ts';

/** §2.3 / §4.2: the customer list item (and the base of the detail and of events). */
export function customerListItem(customer: Customer): CustomerListItem {
  const recovered = totalRecovered(customer);
  return {
    id: customer.id,
    email: customer.email,
    name: customer.name,
    psp: customer.psp,
    psp_customer_id: customer.psp_customer_id,
    status: customer.status,
    total_payments: customer.total_payments,
    failed_payments: customer.failed_payments,
    recovered_payments: customer.recovered_payments,
    total_recovered_amount: recovered.amount,
    total_recovered_currency: recovered.currency,
    created_at: customer.created_at,
    updated_at: customer.updated_at,
  };
}

/** §2.3 detail: the list fields plus subscriptions, payment method and the recovery summary. */
export function customerDetail(customer: Customer, summary: RecoverySummary): CustomerDetail {
  return {
    ...customerListItem(customer),
    subscriptions: customer.subscriptions.map(({ id, psp_subscription_id, plan, amount, currency, status, current_period_end }) => ({
      id,
      psp_subscription_id,
      plan,
      amount,
      currency,
      status,
      current_period_end,
    })),
    payment_method: customer.payment_method && {
      type: customer.payment_method.type,
      brand: customer.payment_method.brand,
      last_four: customer.payment_method.last_four,
      exp_month: customer.payment_method.exp_month,
      exp_year: customer.payment_method.exp_year,
    },
    recovery_summary: summary,
  };
}
