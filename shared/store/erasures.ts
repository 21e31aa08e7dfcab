import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { customerOwnerPartition, tenantKey } from './keys.ts';
import type { TransactItem } from './transactions.ts';
import type { ErasureRecord } from '../model/erasure.ts';

const { db, tableName } = runtime;

const erasureSk = (customerId: string): string => `ERASURE#${customerId}`;
const erasureKey = (tenant: Tenant, customerId: string) => (tenantKey(tenant, erasureSk(customerId)));

export async function findErasure(tenant: Tenant, customerId: string): Promise<ErasureRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: erasureKey(tenant, customerId), ConsistentRead: true }));
  return Item ? entityOf<ErasureRecord>(Item) : undefined;
}

/** Opens the record unless an earlier attempt did; answers when the erasure began (the first attempt's time). */
export async function startErasure(tenant: Tenant, customerId: string, now: Date): Promise<string> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: storedItem<ErasureRecord>(erasureKey(tenant, customerId), 'erasure', {
          customer_id: customerId,
          state: 'in_progress',
          started_at: now.toISOString(),
          completed_at: null,
          anonymized_records: 0,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return now.toISOString();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return (await findErasure(tenant, customerId))!.started_at;
  }
}

/**
 * Counts one anonymised record, in the transaction that anonymises it, so a resumed erasure counts
 * each once; also after completion, for a straggler the final sweep catches.
 */
export function countAnonymizedWrite(tenant: Tenant, customerId: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: erasureKey(tenant, customerId),
      UpdateExpression: 'ADD anonymized_records :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

export function completeErasureWrite(tenant: Tenant, customerId: string, now: Date): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: erasureKey(tenant, customerId),
      UpdateExpression: 'SET #state = :done, completed_at = :now',
      ConditionExpression: '#state = :open',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'completed', ':open': 'in_progress', ':now': now.toISOString() },
    },
  };
}

/** Whatever still carries the customer's link (see customerOwnerPartition), a page at a time. */
export async function ownedItems(tenant: Tenant, customerId: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :owner',
      ExpressionAttributeValues: { ':owner': customerOwnerPartition(tenant, customerId) },
      Limit: 100,
    }),
  );
  return Items;
}

/** Removes an owned item the service keeps nothing of after erasure (anything but payments and events). */
export async function deleteOwnedItem(key: { pk: string; sk: string }): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: key.pk, sk: key.sk } }));
}
