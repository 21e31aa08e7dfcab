import { activateCancelFlow } from '#shared/domain/cancel-flows/cancel-flow-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { cancelFlowResource } from '#shared/representations/cancel-flow';

/** POST /v1/cancel-flows/{id}/activate: the one active flow of the environment; the previous one becomes inactive. */
export const handler = restHandler({ params: idParam('cfl') }, async ({ auth, params, now }) => {
  return ok(cancelFlowResource(await activateCancelFlow(auth.tenant, params.id, now)));
});
