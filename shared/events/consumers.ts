import type { Tenant } from '../model/tenant.ts';
import type { TenantConfiguration } from '../model/tenant-configuration.ts';
import { settleAll } from '../settle-all.ts';
import type { EventType, ServiceEvent } from '../model/events.ts';

/**
 * What reacts to the event log. The table's stream delivers every new event item to the stream
 * handler (functions/streams/events.ts), which hands it to each consumer subscribed to its type.
 * Delivery is at least once, so every consumer must be idempotent by event id.
 */
export interface EventConsumer<T extends EventType = EventType> {
  name: string;
  types: readonly T[] | '*';
  /** Runs only once every other consumer has handled the event: its effect cannot be repeated, theirs can. */
  runsLast?: boolean;
  /** `configuration` is shared by every consumer of the batch's records of this tenant: read through it, not the store. */
  handle(tenant: Tenant, event: ServiceEvent<T>, configuration: TenantConfiguration): Promise<void>;
}

/** A consumer, its event's type told by the types it subscribes to. */
export const eventConsumer = <T extends EventType>(consumer: EventConsumer<T>): EventConsumer<T> => consumer;

export function consumersOf(consumers: readonly EventConsumer[], type: EventType): EventConsumer[] {
  return consumers.filter((consumer) => consumer.types === '*' || consumer.types.includes(type));
}

/**
 * Hands one event to its consumers. They are independent of each other, so they run together and
 * the event costs the slowest one's round trips, not the sum. Each one finishes either way; the
 * first failure is then thrown (the stream delivers the event again, and the ones that succeeded
 * find it already handled), and a consumer that runs last never sees an event another one failed.
 */
export async function handleEvent(consumers: readonly EventConsumer[], tenant: Tenant, event: ServiceEvent, configuration: TenantConfiguration): Promise<void> {
  const subscribed = consumersOf(consumers, event.type);
  for (const wave of [subscribed.filter((consumer) => !consumer.runsLast), subscribed.filter((consumer) => consumer.runsLast)]) {
    await settleAll(wave.map((consumer) => consumer.handle(tenant, event, configuration)));
  }
}
