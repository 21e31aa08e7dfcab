import * as z from '#shared/zod';
import { EXPIRE_PREVIOUS } from '#shared/domain/cancel-flows/cancel-signing';
import { rollSigningSecret } from '#shared/domain/cancel-flows/cancel-signing-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok, showingSecret } from '#shared/http/responses';
import { cancelSigningSecretResource } from '#shared/representations/cancel-signing-secret';

const body = z.strictObject({
  expire_previous: z
    .enum(EXPIRE_PREVIOUS, { error: `must be one of ${EXPIRE_PREVIOUS.join(', ')}` })
    .default('in_24_hours')
    .meta({ description: 'When the secrets this roll replaces stop being accepted: in 24 hours (default), or now, for a secret that leaked' }),
});

/** POST /v1/cancel-flows/signing-secret/roll: a new secret; starts signed with the previous one are accepted 24 more hours, or not at all. */
export const handler = restHandler({ body }, async ({ auth, body, now }) => {
  return showingSecret(ok(cancelSigningSecretResource(await rollSigningSecret(auth.tenant, body.expire_previous, now), now)));
});
