import { scheduler } from '../composition/scheduler.ts';
import { runtime } from '../runtime.ts';
import { eventConsumer } from './consumers.ts';
import { DELIVERED_EVENT_TYPES } from '../model/events.ts';
import { fanOutEvent } from '../domain/outbound-webhooks/delivery.ts';

/**
 * Outbound webhooks' side of the event log: one delivery per subscribed endpoint, its first attempt
 * queued as a webhook-delivery job. Deliveries are keyed by (endpoint, event), so redelivery is harmless.
 */
export const webhookFanOut = eventConsumer({
  name: 'webhooks',
  types: DELIVERED_EVENT_TYPES,
  async handle(tenant, event, configuration) {
    await fanOutEvent({ scheduler }, tenant, event, await configuration.webhookEndpoints(), runtime.clock.now());
  },
});
