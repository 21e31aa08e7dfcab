import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { customerOwnerPartition, tenantKey } from './keys.ts';
import type { TransactItem } from './transactions.ts';
import type { ErasureRecord, ErasureStep } from '../model/erasure.ts';

const { db, tableName } = runtime;

const erasureSk = (customerId: string): string => `ERASURE#${customerId}`;
const erasureKey = (tenant: Tenant, customerId: string) => (tenantKey(tenant, erasureSk(customerId)));

export async function findErasure(tenant: Tenant, customerId: string): Promise<ErasureRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: erasureKey(tenant, customerId), ConsistentRead: true }));
  return Item ? entityOf<ErasureRecord>(Item) : undefined;
}

/**
 * The erasure's record, opened unless an earlier try did: read first, since a resent DELETE (the
 * usual way an erasure that failed part-way goes on) finds it, and one call is cheaper than a failed put and a read.
 */
export async function startErasure(tenant: Tenant, customerId: string, now: Date): Promise<ErasureRecord> {
  const existing = await findErasure(tenant, customerId);
  if (existing) return existing;
  const record: ErasureRecord = { customer_id: customerId, state: 'in_progress', started_at: now.toISOString(), completed_at: null, anonymized_records: 0, steps_done: [] };
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: storedItem<ErasureRecord>(erasureKey(tenant, customerId), 'erasure', record),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return record;
  } catch (error) {
    // A concurrent DELETE opened it, or this put's own answer was lost and the SDK's resend found it.
    if (!isConditionFailure(error)) throw error;
    return (await findErasure(tenant, customerId))!;
  }
}

/** Notes a step done, so a resent erasure skips it; noting it twice (a lost answer) is harmless. */
export async function markErasureStep(tenant: Tenant, customerId: string, step: ErasureStep): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: erasureKey(tenant, customerId),
      UpdateExpression: 'SET steps_done = list_append(if_not_exists(steps_done, :none), :step)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':none': [], ':step': [step] },
    }),
  );
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
