import * as z from '#shared/zod';
import { paymentHistory } from '#shared/domain/customers/payment-queries';
import { pageQuery } from '#shared/http/query-schemas';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';

const query = z.strictObject(pageQuery);

/** GET /v1/payments/{id}/events: the payment's history, oldest first, as webhooks delivered it. */
export const handler = restHandler({ params: idParam('pay'), query }, async ({ auth, params, query }) => {
  const { items, total } = await paymentHistory(auth.tenant, params.id, query);
  return pageOf(items, total, query);
});
