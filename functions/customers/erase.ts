import { eraseCustomer } from '#shared/domain/customers/customer-erasure';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';

/** DELETE /v1/customers/{id} (§4.2): GDPR erasure; repeating it finishes an interrupted one or repeats the answer. */
export const handler = restHandler({ params: idParam('cus') }, async ({ auth, params, now }) => {
  return ok(await eraseCustomer(auth.tenant, params.id, now));
});
