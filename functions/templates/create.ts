import { createTemplate, describeTemplates } from '#shared/domain/templates/template-lifecycle';
import { restHandler } from '#shared/http/rest-handler';
import { created } from '#shared/http/responses';
import { createTemplateBody } from '#shared/http/template-schemas';
import { messageTemplateResource } from '#shared/representations/message-template';

/** POST /v1/templates: a template of the merchant's, its Liquid checked (unknown variables and filters are 422s). */
export const handler = restHandler({ body: createTemplateBody }, async ({ auth, body, now }) => {
  const [template] = await describeTemplates(auth.tenant, [await createTemplate(auth.tenant, body, now)], now);
  return created(messageTemplateResource(template!, auth.tenant));
});
