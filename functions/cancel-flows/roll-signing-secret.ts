import { rollSigningSecret } from '#shared/domain/cancel-signing-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok, showingSecret } from '#shared/http/responses';
import { cancelSigningSecretResource } from '#shared/representations/cancel-signing-secret';

/** POST /v1/cancel-flows/signing-secret/roll: a new secret; starts signed with the previous one are accepted for 24 more hours. */
export const handler = restHandler({}, async ({ auth, now }) => {
  return showingSecret(ok(cancelSigningSecretResource(await rollSigningSecret(auth.tenant, now), now)));
});
