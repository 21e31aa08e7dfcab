import { removeTemplate } from '#shared/domain/templates/template-removal';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { templateIdParam } from '#shared/http/template-schemas';

/** DELETE /v1/templates/{id}: 409 while a campaign that is not archived names it. */
export const handler = restHandler({ params: templateIdParam }, async ({ auth, params }) => {
  await removeTemplate(auth.tenant, params.id);
  return ok({ id: params.id, deleted: true });
});
