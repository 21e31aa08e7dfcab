import { removeEndpoint } from '#shared/domain/outbound-webhooks/endpoints';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import type { DeletedObject } from '#shared/representations/schemas/common';

/** DELETE /v1/webhooks/{id}: attempts still queued for it end as failed. */
export const handler = restHandler({ params: idParam('we') }, async ({ auth, params }) => {
  await removeEndpoint(auth.tenant, params.id);
  return ok({ id: params.id, deleted: true } satisfies DeletedObject);
});
