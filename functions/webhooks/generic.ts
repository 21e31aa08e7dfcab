import { header } from '#shared/http/context';
import { rawBody, webhookReceiver } from '#shared/http/webhook-receiver';
import { GENERIC_SIGNATURE_HEADER, genericEventPayload, parseGenericWebhook } from '#shared/processors/generic-webhook';

/** POST /webhooks/{psp}/{connection_id}: any other processor, in the generic JSON format (docs/webhooks-inbound.md). */
export const handler = webhookReceiver(
  'from-path',
  (event, connection, now) => {
    if (connection.credentials.kind !== 'generic') throw new Error(`Connection ${connection.id} has no webhook secret`);
    return parseGenericWebhook(rawBody(event), header(event, GENERIC_SIGNATURE_HEADER), connection.credentials.webhookSecret, Math.floor(now.getTime() / 1000));
  },
  { contentType: 'application/json', signatureHeader: GENERIC_SIGNATURE_HEADER, body: genericEventPayload },
);
