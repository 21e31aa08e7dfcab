import { createCancelFlow } from '#shared/domain/cancel-flows/cancel-flow-lifecycle';
import { createCancelFlowBody } from '#shared/http/cancel-flow-schemas';
import { restHandler } from '#shared/http/rest-handler';
import { created } from '#shared/http/responses';
import { cancelFlowResource } from '#shared/representations/cancel-flow';

/** POST /v1/cancel-flows: a draft cancel flow; activate it to have new cancel sessions run it. */
export const handler = restHandler({ body: createCancelFlowBody }, async ({ auth, body, now }) => {
  const flow = await createCancelFlow(auth.tenant, body, now);
  return created(cancelFlowResource(flow));
});
