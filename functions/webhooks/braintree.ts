import { WebhookRejected } from '#shared/domain/processor-events';
import { rawBody, webhookReceiver } from '#shared/http/webhook-receiver';
import { parseBraintreeWebhook } from '#shared/processors/braintree-webhook';

/** POST /webhooks/braintree/{connection_id}: Braintree's form-encoded bt_signature / bt_payload notification. */
export const handler = webhookReceiver('braintree', (event, connection) => {
  if (connection.credentials.kind !== 'braintree') throw new Error(`Connection ${connection.id} has no Braintree credentials`);
  const form = new URLSearchParams(rawBody(event));
  const signature = form.get('bt_signature');
  const payload = form.get('bt_payload');
  if (!signature || !payload) throw new WebhookRejected('Expected a form body with bt_signature and bt_payload');
  return parseBraintreeWebhook(signature, payload, connection.credentials, connection.tenant.environment);
});
