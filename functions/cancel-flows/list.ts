import * as z from '#shared/zod';
import { listTenantCancelFlows } from '#shared/domain/cancel-flows/cancel-flow-lifecycle';
import { CANCEL_FLOW_STATUSES } from '#shared/model/cancel-flow';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { cancelFlowResource } from '#shared/representations/cancel-flow';

const query = z.strictObject({
  status: z.enum(CANCEL_FLOW_STATUSES, { error: `must be one of ${CANCEL_FLOW_STATUSES.join(', ')}` }).optional(),
  ...pageQuery,
});

/** GET /v1/cancel-flows: the caller's environment's flows, newest first, optionally by status. */
export const handler = restHandler({ query }, async ({ auth, query }) => {
  const flows = await listTenantCancelFlows(auth.tenant, query.status);
  return pageOf(slicePage(flows, query).map(cancelFlowResource), flows.length, query);
});
