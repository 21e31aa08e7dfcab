import * as z from '../../zod.ts';
import { count, prefixedId, timestamp } from './common.ts';

/** An outbound webhook endpoint; its signing secrets are only in the create and rotate responses. */
export const webhookEndpointSchema = z
  .strictObject({
    id: prefixedId('we'),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(z.string()).meta({ description: 'event types, or ["*"] for every delivered type' }),
    description: z.string(),
    enabled: z.boolean(),
    disabled_reason: z.enum(['merchant', 'failing']).nullable(),
    disabled_at: timestamp.nullable(),
    livemode: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({ secret: z.string().regex(/^whsec_[0-9A-Za-z]{32}$/) })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookDeliverySchema = z
  .strictObject({
    id: prefixedId('whd'),
    object: z.literal('webhook_delivery'),
    endpoint_id: prefixedId('we'),
    event_id: prefixedId('evt'),
    event_type: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: count,
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export type WebhookEndpointResource = z.output<typeof webhookEndpointSchema>;
export type WebhookDeliveryResource = z.output<typeof webhookDeliverySchema>;
