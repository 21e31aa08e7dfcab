import { describeTemplates, templateOf } from '#shared/domain/templates/template-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { templateIdParam } from '#shared/http/template-schemas';
import { messageTemplateResource } from '#shared/representations/message-template';

/** GET /v1/templates/{id}: a built-in template or one of the merchant's. */
export const handler = restHandler({ params: templateIdParam }, async ({ auth, params, now }) => {
  const [template] = await describeTemplates(auth.tenant, [await templateOf(auth.tenant, params.id)], now);
  return ok(messageTemplateResource(template!, auth.tenant));
});
