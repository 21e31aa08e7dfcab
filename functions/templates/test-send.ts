import { mailer, smsSender } from '#shared/composition/messaging';
import { sendTestMessage } from '#shared/domain/templates/template-preview';
import { restHandler } from '#shared/http/rest-handler';
import { ok } from '#shared/http/responses';
import { templateIdParam, testSendBody } from '#shared/http/template-schemas';
import { templateTestSendResource } from '#shared/representations/message-template';

/** POST /v1/templates/{id}/test-send: the preview sent to one address or number, a few a minute. */
export const handler = restHandler({ params: templateIdParam, body: testSendBody }, async ({ auth, params, body, now }) => {
  const sent = await sendTestMessage({ mailer, smsSender }, auth.tenant, params.id, { to: body.to, customerId: body.customer_id }, now);
  return ok(templateTestSendResource(sent));
});
