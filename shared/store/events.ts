import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { ServiceEvent } from '../model/events.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure, queryAll } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { customerOwnerPartition, tenantKey } from './keys.ts';
import type { TransactItem } from './transactions.ts';
import { queryTenant } from './shard-reads.ts';

const { db, tableName } = runtime;

/** The event log's items (model/events.ts has the catalog): one per event, under its tenant, ordered by id (time). */
const eventSk = (eventId: string): string => `EVENT#${eventId}`;

/**
 * The customer an event is about: payment events name it as `customer_id`, customer events are the
 * customer (`id`). The deletion notice is the one exception: it must outlive the erasure it reports.
 */
function customerOf(event: ServiceEvent): string | undefined {
  if (event.type === 'customer.deleted') return undefined;
  const data = event.data;
  if ('customer_id' in data && typeof data.customer_id === 'string') return data.customer_id;
  return 'id' in data && typeof data.id === 'string' && data.id.startsWith('cus_') ? data.id : undefined;
}

export function recordEventWrite(tenant: Tenant, event: ServiceEvent): TransactItem {
  const customerId = customerOf(event);
  // Listed with the customer's other items, so erasure finds the events that carry their data.
  const owner = customerId === undefined ? {} : { gsi1pk: customerOwnerPartition(tenant, customerId), gsi1sk: eventSk(event.id) };
  return {
    Put: {
      TableName: tableName,
      Item: storedItem(tenantKey(tenant, eventSk(event.id)), 'event', event, owner),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Replaces an event's data with an anonymised copy and takes it out of its customer's partition
 * (erasure). An update, not a new item: stream consumers react to new events only.
 */
export async function anonymizeEvent(tenant: Tenant, eventId: string, data: Record<string, unknown>): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, eventSk(eventId)),
        UpdateExpression: 'SET #data = :data REMOVE gsi1pk, gsi1sk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: { ':data': data },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Events of a tenant, oldest first (ids sort by time). */
export async function listEvents(tenant: Tenant, limit = 100): Promise<ServiceEvent[]> {
  const items = await queryTenant(tenant, { prefix: 'EVENT#' }, { Limit: limit });
  return items.slice(0, limit).map((item) => entityOf<ServiceEvent>(item));
}

/** One event as stored (anonymised if its customer was erased since), for outbound delivery. */
export async function findEvent(tenant: Tenant, eventId: string): Promise<ServiceEvent | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: tenantKey(tenant, eventSk(eventId)), ConsistentRead: true }));
  return Item ? entityOf<ServiceEvent>(Item) : undefined;
}

/**
 * The events about one customer, oldest first (the customer's partition of gsi1): a customer has few.
 * Erasure takes its events out of the partition, so an erased customer has none here.
 */
export async function eventsOfCustomer(tenant: Tenant, customerId: string): Promise<ServiceEvent[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :owner AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':owner': customerOwnerPartition(tenant, customerId), ':prefix': 'EVENT#' },
  });
  return items.map((item) => entityOf<ServiceEvent>(item));
}
