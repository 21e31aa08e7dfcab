import { previewTemplate } from '#shared/domain/templates/template-preview';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { previewBody, templateIdParam } from '#shared/http/template-schemas';
import { templatePreviewResource } from '#shared/representations/message-template';

/** POST /v1/templates/{id}/preview: the message with sample data, or a customer's most recent open failure. */
export const handler = restHandler({ params: templateIdParam, body: previewBody }, async ({ auth, params, body, now }) => {
  return ok(templatePreviewResource(await previewTemplate(auth.tenant, params.id, body.customer_id, now)));
});
