import { updateCancelFlow } from '#shared/domain/cancel-flows/cancel-flow-lifecycle';
import { updateCancelFlowBody } from '#shared/http/cancel-flow-schemas';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { cancelFlowResource } from '#shared/representations/cancel-flow';

/** PUT /v1/cancel-flows/{id}: changes the fields sent; running sessions keep the steps they started with. */
export const handler = restHandler({ params: idParam('cfl'), body: updateCancelFlowBody }, async ({ auth, params, body, now }) => {
  const flow = await updateCancelFlow(auth.tenant, params.id, body, now);
  return ok(cancelFlowResource(flow));
});
