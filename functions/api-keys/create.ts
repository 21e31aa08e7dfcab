import * as z from '#shared/zod';
import { SCOPES } from '#shared/model/api-key';
import { issueApiKey } from '#shared/domain/access/api-key-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { created, showingSecret } from '#shared/http/responses';
import { isoTimestamp } from '#shared/http/time-schemas';
import { apiKeyResource } from '#shared/representations/api-key';

const body = z.strictObject({
  name: z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }),
  type: z.enum(['secret', 'publishable']).default('secret'),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, { error: 'must list at least one scope' })
    .refine((scopes) => new Set(scopes).size === scopes.length, { error: 'must not repeat a scope' })
    .optional(),
  expires_at: isoTimestamp.optional(),
});

/** POST /v1/api-keys: a new key in the caller's environment; the secret is in this response only. */
export const handler = restHandler({ body }, async ({ auth, body, now }) => {
  const { record, secret } = await issueApiKey(
    auth.tenant,
    {
      name: body.name,
      kind: body.type,
      scopes: body.scopes,
      expiresAt: body.expires_at === undefined ? undefined : new Date(body.expires_at).toISOString(),
    },
    now,
  );
  return showingSecret(created({ ...apiKeyResource(record, now), secret }));
});
