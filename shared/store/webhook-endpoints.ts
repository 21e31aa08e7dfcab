import { ReturnValuesOnConditionCheckFailure } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { isConditionFailure, itemAtConditionFailure, putVersioned, queryAll, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { tenantKey, tenantPk } from './keys.ts';
import type { WebhookEndpoint } from '../model/webhook-endpoint.ts';

const { db, tableName } = runtime;

const endpointSk = (id: string): string => `WEBHOOK#${id}`;

const fromItem = (item: Item): WebhookEndpoint => entityOf<WebhookEndpoint>(item);

export async function findEndpoint(tenant: Tenant, id: string): Promise<WebhookEndpoint | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: tenantKey(tenant, endpointSk(id)), ConsistentRead: true }));
  return Item ? fromItem(Item) : undefined;
}

/** The endpoint an API call names: 404 when missing, 401 when it is the other environment's (§5 rule 1). */
export async function getEndpoint(tenant: Tenant, id: string): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(tenant, id);
  if (!endpoint) throw await missingResource(tenant, endpointSk(id), 'webhook endpoint', id);
  return endpoint;
}

/** Every endpoint of the tenant, oldest first (a tenant has at most a few; see MAX_ENDPOINTS). */
export async function listEndpoints(tenant: Tenant, consistent = false): Promise<WebhookEndpoint[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'WEBHOOK#' },
    ConsistentRead: consistent,
  });
  return items.map(fromItem);
}

/** Creates (previousVersion null) or replaces an endpoint; false when it changed (or appeared) meanwhile. */
export async function saveEndpoint(tenant: Tenant, endpoint: WebhookEndpoint, previousVersion: number | null): Promise<boolean> {
  return putVersioned(db, tableName, storedItem(tenantKey(tenant, endpointSk(endpoint.id)), 'webhook_endpoint', endpoint), previousVersion);
}

/** Deletes the endpoint an API call names; missing, it fails as getEndpoint does. */
export async function deleteEndpoint(tenant: Tenant, id: string): Promise<void> {
  // Read first, not a condition: a delete the SDK resends after a lost answer finds nothing, yet it deleted what this read found.
  await getEndpoint(tenant, id);
  await db.send(new DeleteCommand({ TableName: tableName, Key: tenantKey(tenant, endpointSk(id)) }));
}

/** Delivery bookkeeping: named-field updates, so they never clash with the API's version lock. */
export async function markEndpointSuccess(tenant: Tenant, id: string, at: Date): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, endpointSk(id)),
        UpdateExpression: 'SET last_success_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at.toISOString() },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Disables an endpoint that kept failing, unless a delivery to it succeeded since `failingSince` or
 * it is already disabled. True when this call disabled it, also when the SDK resent it after its
 * answer was lost and found it disabled by its own first try (the reason and time it wrote).
 */
export async function disableFailingEndpoint(tenant: Tenant, id: string, failingSince: string, at: Date): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, endpointSk(id)),
        UpdateExpression: 'SET enabled = :false, disabled_reason = :reason, disabled_at = :at, updated_at = :at',
        ConditionExpression: 'enabled = :true AND (attribute_not_exists(last_success_at) OR last_success_at = :null OR last_success_at < :since)',
        ExpressionAttributeValues: { ':false': false, ':true': true, ':reason': 'failing', ':at': at.toISOString(), ':null': null, ':since': failingSince },
        ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const stored = itemAtConditionFailure(error);
    return stored?.enabled === false && stored.disabled_reason === 'failing' && stored.disabled_at === at.toISOString();
  }
}
