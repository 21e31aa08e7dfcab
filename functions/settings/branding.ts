import { brandingSettings } from '#shared/domain/branding/branding-settings';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import type { BrandingResource } from '#shared/representations/schemas/branding';

/** GET /v1/settings/branding: the name, logo, colour and support address customers see. */
export const handler = restHandler({}, async ({ auth }) => {
  return ok((await brandingSettings(auth.tenant)) satisfies BrandingResource);
});
