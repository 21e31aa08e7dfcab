import { listCustomerPayments } from '#shared/domain/customers/payment-queries';
import { customerPaymentsQuery } from '#shared/http/customer-payments-query';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { customerPaymentItem } from '#shared/representations/payment';

/** GET /v1/customers/{id}/payments (§4.2). */
export const handler = restHandler({ params: idParam('cus'), query: customerPaymentsQuery }, async ({ auth, params, query }) => {
  const { items, total } = await listCustomerPayments(auth.tenant, params.id, query);
  return pageOf(items.map(customerPaymentItem), total, query);
});
