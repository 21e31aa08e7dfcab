import { header } from '#shared/http/context';
import { rawBody, webhookReceiver } from '#shared/http/webhook-receiver';
import { parseStripeWebhook, STRIPE_SIGNATURE_HEADER, stripeEventEnvelope } from '#shared/processors/stripe-webhook';

/** POST /webhooks/stripe/{connection_id}: native Stripe events, verified with the Stripe-Signature header. */
export const handler = webhookReceiver(
  'stripe',
  (event, connection, now) => {
    if (connection.credentials.kind !== 'stripe') throw new Error(`Connection ${connection.id} has no Stripe credentials`);
    return parseStripeWebhook(rawBody(event), header(event, STRIPE_SIGNATURE_HEADER), connection.credentials.webhookSecret, Math.floor(now.getTime() / 1000));
  },
  { contentType: 'application/json', signatureHeader: STRIPE_SIGNATURE_HEADER, body: stripeEventEnvelope },
);
