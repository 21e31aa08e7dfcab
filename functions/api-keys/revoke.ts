import { revokeApiKey } from '#shared/domain/access/api-key-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { apiKeyResource } from '#shared/representations/api-key';

/** POST /v1/api-keys/{id}/revoke: the key, and any secret still in its grace period, stop working now. */
export const handler = restHandler({ params: idParam('key') }, async ({ auth, params, now }) => {
  const record = await revokeApiKey(auth.tenant, params.id, now);
  return ok(apiKeyResource(record, now));
});
