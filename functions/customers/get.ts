import { customerWithSummary } from '#shared/domain/customers/customer-queries';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { customerDetail } from '#shared/representations/customer';

/** GET /v1/customers/{id} (§2.3): subscriptions, payment method and recovery summary. */
export const handler = restHandler({ params: idParam('cus') }, async ({ auth, params }) => {
  const { customer, summary } = await customerWithSummary(auth.tenant, params.id);
  return ok(customerDetail(customer, summary));
});
