import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure, queryAll } from './dynamo.ts';
import { epochSeconds, tenantPk } from './keys.ts';

const { db, tableName } = runtime;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One event for one endpoint. Its key is (endpoint, event), so however often the event log delivers
 * the event, the endpoint gets one delivery; the id is `whd_` + the event id's body, so deliveries sort
 * by event time. It holds no event data: each attempt reads the event item, which erasure anonymises.
 */
export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts made so far; the next attempt is number attempts + 1. */
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  first_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Deliveries are kept 30 days, like the event history merchants can replay from. */
export const DELIVERY_RETENTION_DAYS = 30;

export const deliveryIdFor = (eventId: string): string => `whd_${eventId.slice(eventId.indexOf('_') + 1)}`;
export const eventIdFor = (deliveryId: string): string => `evt_${deliveryId.slice(deliveryId.indexOf('_') + 1)}`;

const deliverySk = (endpointId: string, eventId: string): string => `WHDELIVERY#${endpointId}#${eventId}`;

function fromItem(item: Record<string, unknown>): WebhookDelivery {
  const { pk: _pk, sk: _sk, entity: _entity, expires_at: _expires, ...rest } = item;
  return rest as unknown as WebhookDelivery;
}

/** Creates the delivery unless it exists; returns the stored one either way and whether this call created it. */
export async function createDelivery(tenant: Tenant, delivery: WebhookDelivery, now: Date): Promise<{ created: boolean; delivery: WebhookDelivery }> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: tenantPk(tenant),
          sk: deliverySk(delivery.endpoint_id, delivery.event_id),
          entity: 'webhook_delivery',
          ...delivery,
          expires_at: epochSeconds(now) + DELIVERY_RETENTION_DAYS * 86_400,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { created: true, delivery };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // A redelivered event (rare): read what the first delivery of it created.
    const stored = await findDelivery(tenant, delivery.endpoint_id, delivery.event_id);
    return { created: false, delivery: stored ?? delivery };
  }
}

export async function findDelivery(tenant: Tenant, endpointId: string, eventId: string): Promise<WebhookDelivery | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: deliverySk(endpointId, eventId) }, ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** An endpoint's deliveries, newest first; at most 30 days' worth exist (TTL), expired ones are skipped. */
export async function listDeliveries(tenant: Tenant, endpointId: string, now: Date): Promise<WebhookDelivery[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': `WHDELIVERY#${endpointId}#` },
    ScanIndexForward: false,
  });
  return items.filter((item) => typeof item.expires_at !== 'number' || item.expires_at > epochSeconds(now)).map(fromItem);
}

export type DeliveryChange = Partial<Pick<WebhookDelivery, 'status' | 'attempts' | 'last_status_code' | 'last_error' | 'next_attempt_at' | 'first_attempt_at'>>;

/**
 * Applies a change if the delivery is still as the caller read it (status and attempts), so two runs
 * of one attempt job, or a replay racing an attempt, record one outcome. False when it moved on.
 */
export async function updateDelivery(tenant: Tenant, read: WebhookDelivery, change: DeliveryChange, now: Date): Promise<boolean> {
  const fields = { ...change, updated_at: now.toISOString() };
  const names = Object.keys(fields);
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: tenantPk(tenant), sk: deliverySk(read.endpoint_id, read.event_id) },
        UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        ConditionExpression: '#status = :readStatus AND attempts = :readAttempts',
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])) },
        ExpressionAttributeValues: {
          ':readStatus': read.status,
          ':readAttempts': read.attempts,
          ...Object.fromEntries(names.map((name, i) => [`:f${i}`, fields[name as keyof typeof fields] ?? null])),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
