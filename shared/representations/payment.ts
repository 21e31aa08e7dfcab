import type { Customer } from '../model/customer.ts';
import type { Payment } from '../model/payment.ts';
import type { CustomerPaymentItem, PaymentDetail, PaymentResource } from './schemas/payment.ts';

/** §2.4: the payment object of lists and events. */
export function paymentResource(payment: Payment): PaymentResource {
  return {
    id: payment.id,
    customer_id: payment.customer_id,
    subscription_id: payment.subscription_id,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    decline_code: payment.decline_code,
    decline_category: payment.decline_category,
    decline_subcategory: payment.decline_subcategory,
    psp: payment.psp,
    psp_payment_id: payment.psp_payment_id,
    retry_count: payment.retry_count,
    max_retries: payment.max_retries,
    next_retry_at: payment.next_retry_at,
    recovered_at: payment.recovered_at,
    created_at: payment.created_at,
    updated_at: payment.updated_at,
  };
}

/** §2.4 detail: the payment, its customer's name and email, and every attempt. */
export function paymentDetail(payment: Payment, customer: Customer | null): PaymentDetail {
  return {
    ...paymentResource(payment),
    customer: customer && { id: customer.id, email: customer.email, name: customer.name },
    retries: payment.retries.map(({ attempt, status, decline_code, attempted_at }) => ({ attempt, status, decline_code, attempted_at })),
    network_decline_code: payment.network_decline_code ?? null,
    network_advice_code: payment.network_advice_code ?? null,
    network_hold: payment.network_hold ?? null,
  };
}

/** §4.2: a payment in a customer's payment list. */
export function customerPaymentItem(payment: Payment): CustomerPaymentItem {
  return {
    id: payment.id,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    decline_code: payment.decline_code,
    decline_category: payment.decline_category,
    retry_count: payment.retry_count,
    created_at: payment.created_at,
    recovered_at: payment.recovered_at,
  };
}
