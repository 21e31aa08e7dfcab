import { paymentWithCustomer } from '#shared/domain/customers/payment-queries';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { paymentDetail } from '#shared/representations/payment';

/** GET /v1/payments/{id} (§2.4): the payment with its customer and retries. */
export const handler = restHandler({ params: idParam('pay') }, async ({ auth, params }) => {
  const { payment, customer } = await paymentWithCustomer(auth.tenant, params.id);
  return ok(paymentDetail(payment, customer));
});
