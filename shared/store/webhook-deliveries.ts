import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { epochSeconds, tenantKey } from './keys.ts';
import type { WebhookDelivery } from '../model/webhook-endpoint.ts';
import { queryTenant } from './shard-reads.ts';

const { db, tableName } = runtime;

/** Deliveries are kept 30 days, like the event history merchants can replay from. */
export const DELIVERY_RETENTION_DAYS = 30;


const deliverySk = (endpointId: string, eventId: string): string => `WHDELIVERY#${endpointId}#${eventId}`;

const fromItem = (item: Item): WebhookDelivery => entityOf<WebhookDelivery>(item, ['expires_at']);

/** Creates the delivery unless it exists; returns the stored one either way and whether this call created it. */
export async function createDelivery(tenant: Tenant, delivery: WebhookDelivery, now: Date): Promise<{ created: boolean; delivery: WebhookDelivery }> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: storedItem(tenantKey(tenant, deliverySk(delivery.endpoint_id, delivery.event_id)), 'webhook_delivery', delivery, {
          expires_at: epochSeconds(now) + DELIVERY_RETENTION_DAYS * 86_400,
        }),
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
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, deliverySk(endpointId, eventId)), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** An endpoint's deliveries, newest first; at most 30 days' worth exist (TTL), expired ones are skipped. */
export async function listDeliveries(tenant: Tenant, endpointId: string, now: Date): Promise<WebhookDelivery[]> {
  const items = await queryTenant(tenant, { prefix: `WHDELIVERY#${endpointId}#` }, { ScanIndexForward: false });
  return items.filter((item) => typeof item.expires_at !== 'number' || item.expires_at > epochSeconds(now)).map(fromItem);
}

export type DeliveryChange = Partial<Pick<WebhookDelivery, 'status' | 'attempts' | 'last_status_code' | 'last_error' | 'next_attempt_at' | 'first_attempt_at'>>;

/**
 * Applies a change if the delivery is still as the caller read it (status and attempts), so two runs
 * of one attempt job, or a replay racing an attempt, record one outcome. False when it moved on; true
 * when what moved it was this change (the SDK resending an update whose answer was lost).
 */
export async function updateDelivery(tenant: Tenant, read: WebhookDelivery, change: DeliveryChange, now: Date): Promise<boolean> {
  const fields = { ...change, updated_at: now.toISOString() };
  const names = Object.keys(fields);
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, deliverySk(read.endpoint_id, read.event_id)),
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
    if (!isConditionFailure(error)) throw error;
    const stored = await findDelivery(tenant, read.endpoint_id, read.event_id);
    return stored?.updated_at === fields.updated_at && stored.status === (change.status ?? read.status) && stored.attempts === (change.attempts ?? read.attempts);
  }
}
