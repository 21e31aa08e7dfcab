import * as z from '../zod.ts';
import { updateBody } from '../body-fields.ts';
import { DELIVERED_EVENT_TYPES } from '../model/events.ts';

/** Request bodies of POST and PUT /v1/webhooks (outbound endpoints); the other routes' parameters are in their handlers. */
const url = z.string().min(1, { error: 'must not be empty' }).max(2048, { error: 'must be at most 2048 characters' });

const events = z
  .array(z.enum(['*', ...DELIVERED_EVENT_TYPES], { error: `must be "*" or one of: ${DELIVERED_EVENT_TYPES.join(', ')}` }))
  .min(1, { error: 'must list at least one event type, or "*"' })
  .max(DELIVERED_EVENT_TYPES.length + 1)
  .refine((list) => new Set(list).size === list.length, { error: 'must not repeat an event type' });

const description = z.string().max(500, { error: 'must be at most 500 characters' });

export const createWebhookBody = z.strictObject({ url, events, description: description.optional(), enabled: z.boolean().optional() });

export const updateWebhookBody = updateBody({ url, events, description, enabled: z.boolean() });
