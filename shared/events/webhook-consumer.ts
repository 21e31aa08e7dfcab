import { scheduler } from '../adapters/scheduler.ts';
import { runtime } from '../composition.ts';
import { DELIVERED_EVENT_TYPES, fanOutEvent } from '../domain/outbound-webhooks/endpoints.ts';
import type { EventConsumer } from './consumers.ts';

/**
 * Outbound webhooks' side of the event log: one delivery per subscribed endpoint, its first attempt
 * queued as a webhook-delivery job. Deliveries are keyed by (endpoint, event), so redelivery is harmless.
 */
export const webhookFanOut: EventConsumer = {
  name: 'webhooks',
  types: DELIVERED_EVENT_TYPES,
  async handle(tenant, event) {
    await fanOutEvent({ scheduler }, tenant, event, runtime.clock.now());
  },
};
