import { listPayments } from '#shared/domain/customers/payment-queries';
import { paymentListQuery } from '#shared/http/payment-list-query';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { paymentResource } from '#shared/representations/payment';

/** GET /v1/payments (§4.3): every filter, three orders, pages; totals from counters where they can. */
export const handler = restHandler({ query: paymentListQuery }, async ({ auth, query }) => {
  const { items, total } = await listPayments(auth.tenant, query);
  return pageOf(items.map(paymentResource), total, query);
});
