import * as z from 'zod';
import { DELIVERED_EVENT_TYPES } from '../domain/webhooks.ts';
import { pageQuery } from './schemas.ts';

/** Request schemas of /v1/webhooks (outbound endpoints). */
const url = z.string().min(1, { error: 'must not be empty' }).max(2048, { error: 'must be at most 2048 characters' });

const events = z
  .array(z.enum(['*', ...DELIVERED_EVENT_TYPES], { error: `must be "*" or one of: ${DELIVERED_EVENT_TYPES.join(', ')}` }))
  .min(1, { error: 'must list at least one event type, or "*"' })
  .max(DELIVERED_EVENT_TYPES.length + 1)
  .refine((list) => new Set(list).size === list.length, { error: 'must not repeat an event type' });

const description = z.string().max(500, { error: 'must be at most 500 characters' });

export const createWebhookBody = z.strictObject({ url, events, description: description.optional(), enabled: z.boolean().optional() });

export const updateWebhookBody = z
  .strictObject({ url: url.optional(), events: events.optional(), description: description.optional(), enabled: z.boolean().optional() })
  .refine((body) => Object.keys(body).length > 0, { error: 'send at least one of url, events, description, enabled' });

export const webhookIdParam = z.strictObject({ id: z.string().regex(/^we_[0-9a-z]{26}$/, { error: 'must be a we_ id' }) });

export const deliveryParams = z.strictObject({
  id: z.string().regex(/^we_[0-9a-z]{26}$/, { error: 'must be a we_ id' }),
  delivery_id: z.string().regex(/^whd_[0-9a-z]{26}$/, { error: 'must be a whd_ id' }),
});

export const webhookListQuery = z.strictObject({ ...pageQuery });

export const deliveryListQuery = z.strictObject({
  status: z.enum(['pending', 'succeeded', 'failed'], { error: 'must be one of: pending, succeeded, failed' }).optional(),
  ...pageQuery,
});
