import { rotateApiKey } from '#shared/domain/access/api-key-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok, showingSecret } from '#shared/http/responses';
import { idParam } from '#shared/http/schemas';
import { apiKeyResource } from '#shared/representations/api-key';

/** POST /v1/api-keys/{id}/rotate: a new secret, returned once; the old one works for 24 more hours. */
export const handler = restHandler({ params: idParam('key') }, async ({ auth, params, now }) => {
  const { record, secret } = await rotateApiKey(auth.tenant, params.id, now);
  return showingSecret(ok({ ...apiKeyResource(record, now), secret }));
});
