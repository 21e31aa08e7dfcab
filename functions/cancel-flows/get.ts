import { getCancelFlow } from '#shared/domain/cancel-flows/cancel-flow-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { cancelFlowResource } from '#shared/representations/cancel-flow';

/** GET /v1/cancel-flows/{id}: one flow with its steps. */
export const handler = restHandler({ params: idParam('cfl') }, async ({ auth, params }) => {
  return ok(cancelFlowResource(await getCancelFlow(auth.tenant, params.id)));
});
