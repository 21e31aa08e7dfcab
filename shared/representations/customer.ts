import { totalRecovered, type Customer } from '../domain/customers.ts';

/** §2.3 / §4.2: the customer list item (and the base of the detail and of events). */
export function customerListItem(customer: Customer) {
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
