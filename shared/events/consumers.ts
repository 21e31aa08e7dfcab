import type { Tenant } from '../domain/tenant.ts';
import type { EventType, ServiceEvent } from '../store/events.ts';

/**
 * What reacts to the event log. The table's stream delivers every new event item to the stream
 * handler (functions/streams/events.ts), which hands it to each consumer subscribed to its type.
 * Delivery is at least once, so every consumer must be idempotent by event id.
 */
export interface EventConsumer {
  name: string;
  types: readonly EventType[] | '*';
  handle(tenant: Tenant, event: ServiceEvent): Promise<void>;
}

export function consumersOf(consumers: readonly EventConsumer[], type: EventType): EventConsumer[] {
  return consumers.filter((consumer) => consumer.types === '*' || consumer.types.includes(type));
}
