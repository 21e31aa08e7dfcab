import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import type { Tenant } from '../domain/tenant.ts';
import { newId } from '../ids.ts';
import { isConditionFailure, queryAll } from './dynamo.ts';
import { customerOwnerPartition, tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * The tenant's event log: every state change writes its event in the same transaction as the change
 * (a transactional outbox), so outbound webhooks and analytics can never miss or invent one.
 */
export type EventType =
  | 'payment.failed'
  | 'payment.recovered'
  | 'payment.terminal'
  | 'payment.retry_scheduled'
  | 'payment.retry_failed'
  /** Internal (never delivered to webhooks): a later decline moved an open payment to another category; analytics moves its failure with it. */
  | 'payment.recategorized'
  /** Internal (never delivered to webhooks): a payment counted terminal was paid after all; analytics takes it out of terminal (its recovery counts as any other). */
  | 'payment.terminal_reversed'
  | 'customer.created'
  | 'customer.deleted'
  | 'customer.retained'
  | 'customer.subscription_canceled'
  | 'campaign.message_sent'
  /** Internal (never delivered to webhooks): an enrollment was created; feeds campaign analytics. */
  | 'campaign.enrolled'
  /** Internal (never delivered to webhooks): a recovery settled an active enrollment, crediting its campaign and last step sent. */
  | 'campaign.recovered'
  /** Internal (never delivered to webhooks): a campaign's status changed; archiving and re-activation sweep its enrollments. */
  | 'campaign.status_changed'
  | 'CancelFlowCompleted'
  | 'CancelFlowSaved';

export interface ServiceEvent {
  id: string;
  type: EventType;
  created: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

const eventSk = (eventId: string): string => `EVENT#${eventId}`;

export function newEvent(tenant: Tenant, type: EventType, data: Record<string, unknown>, now: Date): ServiceEvent {
  return { id: newId('evt', now), type, created: now.toISOString(), livemode: tenant.environment === 'live', data };
}

/**
 * The customer an event is about: payment events name it as `customer_id`, customer events are the
 * customer (`id`). The deletion notice is the one exception: it must outlive the erasure it reports.
 */
function customerOf(event: ServiceEvent): string | undefined {
  if (event.type === 'customer.deleted') return undefined;
  const { customer_id: customerId, id } = event.data;
  if (typeof customerId === 'string') return customerId;
  return typeof id === 'string' && id.startsWith('cus_') ? id : undefined;
}

export function recordEventWrite(tenant: Tenant, event: ServiceEvent): TransactItem {
  const customerId = customerOf(event);
  // Listed with the customer's other items, so erasure finds the events that carry their data.
  const owner = customerId === undefined ? {} : { gsi1pk: customerOwnerPartition(tenant, customerId), gsi1sk: eventSk(event.id) };
  return {
    Put: {
      TableName: tableName,
      Item: { pk: tenantPk(tenant), sk: eventSk(event.id), entity: 'event', ...event, ...owner },
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
        Key: { pk: tenantPk(tenant), sk: eventSk(eventId) },
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
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'EVENT#' },
      Limit: limit,
    }),
  );
  return Items.map(({ id, type, created, livemode, data }) => ({ id, type, created, livemode, data }) as ServiceEvent);
}

/** One event as stored (anonymised if its customer was erased since), for outbound delivery. */
export async function findEvent(tenant: Tenant, eventId: string): Promise<ServiceEvent | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: eventSk(eventId) }, ConsistentRead: true }));
  if (!Item) return undefined;
  const { id, type, created, livemode, data } = Item;
  return { id, type, created, livemode, data } as ServiceEvent;
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
  return items.map(({ id, type, created, livemode, data }) => ({ id, type, created, livemode, data }) as ServiceEvent);
}
