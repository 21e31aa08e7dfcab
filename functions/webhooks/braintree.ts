import * as z from '#shared/zod';
import { WebhookRejected } from '#shared/model/processor-event';
import { rawBody, webhookReceiver } from '#shared/http/webhook-receiver';
import { parseBraintreeWebhook } from '#shared/processors/braintree-webhook';

/** Braintree signs inside the form: bt_signature covers bt_payload. */
const form = z.object({ bt_signature: z.string().min(1), bt_payload: z.string().min(1) });

/** POST /webhooks/braintree/{connection_id}: Braintree's form-encoded bt_signature / bt_payload notification. */
export const handler = webhookReceiver(
  'braintree',
  (event, connection) => {
    if (connection.credentials.kind !== 'braintree') throw new Error(`Connection ${connection.id} has no Braintree credentials`);
    const fields = form.safeParse(Object.fromEntries(new URLSearchParams(rawBody(event))));
    if (!fields.success) throw new WebhookRejected('Expected a form body with bt_signature and bt_payload');
    return parseBraintreeWebhook(fields.data.bt_signature, fields.data.bt_payload, connection.credentials);
  },
  { contentType: 'application/x-www-form-urlencoded', body: form },
);
