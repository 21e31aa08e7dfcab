import { updateBranding } from '#shared/domain/branding/branding-settings';
import { updateBrandingBody } from '#shared/http/branding-schemas';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import type { BrandingResource } from '#shared/representations/schemas/branding';

/** PUT /v1/settings/branding: the fields sent change, the others stay. */
export const handler = restHandler({ body: updateBrandingBody }, async ({ auth, body, now }) => {
  return ok((await updateBranding(auth.tenant, body, now)) satisfies BrandingResource);
});
