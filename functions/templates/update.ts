import { describeTemplates, updateTemplate } from '#shared/domain/templates/template-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { templateIdParam, updateTemplateBody } from '#shared/http/template-schemas';
import { messageTemplateResource } from '#shared/representations/message-template';

/** PUT /v1/templates/{id}: the fields sent replace the stored ones; built-in templates are read-only (409). */
export const handler = restHandler({ params: templateIdParam, body: updateTemplateBody }, async ({ auth, params, body, now }) => {
  const [template] = await describeTemplates(auth.tenant, [await updateTemplate(auth.tenant, params.id, body, now)], now);
  return ok(messageTemplateResource(template!, auth.tenant));
});
