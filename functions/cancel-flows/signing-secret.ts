import { signingSecretsOf } from '#shared/domain/cancel-flows/cancel-signing-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { cancelSigningSecretResource } from '#shared/representations/cancel-signing-secret';

/** GET /v1/cancel-flows/signing-secret: what the merchant's server signs cancel-session starts with (made on first read). */
export const handler = restHandler({}, async ({ auth, now }) => {
  return ok(cancelSigningSecretResource(await signingSecretsOf(auth.tenant, now), now));
});
