import * as z from '#shared/zod';
import { listCancelFeedback } from '#shared/domain/cancel-flows/cancel-feedback-listing';
import { slicePage } from '#shared/model/pagination';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { pageQuery } from '#shared/http/query-schemas';
import { cancelFeedbackResource } from '#shared/representations/cancel-feedback';
import { OUTCOMES } from '#shared/model/cancel-session';

const query = z.strictObject({
  outcome: z.enum(OUTCOMES, { error: `must be one of ${OUTCOMES.join(', ')}` }).optional(),
  cancel_flow_id: z.string().regex(/^cfl_[0-9a-z]{26}$/, { error: 'must be a cfl_ id' }).optional(),
  ...pageQuery,
});

/** GET /v1/cancel-feedback: what subscribers answered in completed cancel sessions, newest first. */
export const handler = restHandler({ query }, async ({ auth, query }) => {
  const records = await listCancelFeedback(auth.tenant, { outcome: query.outcome, cancelFlowId: query.cancel_flow_id });
  return pageOf(slicePage(records, query).map(cancelFeedbackResource), records.length, query);
});
