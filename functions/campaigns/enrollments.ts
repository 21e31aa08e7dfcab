import { listCampaignEnrollments } from '#shared/domain/campaigns/enrollment-queries';
import { enrollmentListQuery } from '#shared/http/enrollment-list-query';
import { restHandler } from '#shared/http/rest-handler';
import { pageOf } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { enrollmentResource } from '#shared/representations/enrollment';

/** GET /v1/campaigns/{id}/enrollments: who is (or was) in the campaign's sequence, newest first. */
export const handler = restHandler({ params: idParam('cmp'), query: enrollmentListQuery }, async ({ auth, params, query }) => {
  const { items, total } = await listCampaignEnrollments(auth.tenant, params.id, query);
  return pageOf(items.map(enrollmentResource), total, query);
});
