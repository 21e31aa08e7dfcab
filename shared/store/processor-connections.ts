import { GetCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { stateConflict } from '../model/errors.ts';
import type { Tenant } from '../model/tenant.ts';
import type { Envelope } from '../model/envelope.ts';
import { connectionOf, recordOf, type ProcessorConnection, type ProcessorConnectionRecord, type ProcessorCredentials, type SealedConnection } from '../model/processor-connection.ts';
import { cancelledPositions, idempotentTransaction, isConditionFailure, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { InstanceCache } from './instance-cache.ts';
import { tenantKey, tenantPk } from './keys.ts';

const { db, tableName } = runtime;

/**
 * How long an instance reuses a connection looked up for a webhook, so a warm receiver verifies
 * signatures without a read. A signature that fails against a cached copy is checked once more
 * against a fresh read (webhook-receiver.ts), so a replaced secret works at once everywhere.
 */
export const CONNECTION_CACHE_SECONDS = 60;
const recentConnections = new InstanceCache<ProcessorConnection>(CONNECTION_CACHE_SECONDS, 1_000);

const ENTITY = 'processor_connection';
const recordSk = (psp: string): string => `PROCESSOR#${psp}`;
/** Webhooks arrive with only the connection id in the URL: this item finds the tenant and secrets from it. */
const lookupPk = (connectionId: string): string => `CONNECTION#${connectionId}`;

const fromItem = (item: Item): ProcessorConnection => connectionOf(entityOf<ProcessorConnectionRecord>(item));

export async function findConnectionForPsp(tenant: Tenant, psp: string): Promise<ProcessorConnection | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, recordSk(psp)), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** The connection behind a webhook URL as this instance read it in the last CONNECTION_CACHE_SECONDS, if it did. */
export function cachedConnection(connectionId: string): ProcessorConnection | undefined {
  return recentConnections.peek(connectionId);
}

/** Reads the connection behind a webhook URL (and keeps it for `cachedConnection`). */
export async function findConnection(connectionId: string): Promise<ProcessorConnection | undefined> {
  return recentConnections.load(connectionId, async () => {
    // Consistent: after a failed signature this read decides whether the secret was just replaced.
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: { pk: lookupPk(connectionId), sk: 'CONNECTION' }, ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : undefined;
  });
}

export async function listConnections(tenant: Tenant): Promise<ProcessorConnection[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'PROCESSOR#' },
    }),
  );
  return Items.map(fromItem);
}

/**
 * Creates or replaces the tenant's connection for one processor, keeping its id (and so its webhook
 * URL) stable. `previousId` is what the caller read: a concurrent create or replace makes this fail.
 */
export async function saveConnection(connection: SealedConnection, previousId: string | null): Promise<void> {
  const record = recordOf(connection);
  try {
    await db.send(
      idempotentTransaction([
          {
            Put: {
              TableName: tableName,
              Item: storedItem(tenantKey(connection.tenant, recordSk(connection.psp)), ENTITY, record),
              ConditionExpression: previousId === null ? 'attribute_not_exists(pk)' : 'id = :id',
              ExpressionAttributeValues: previousId === null ? undefined : { ':id': previousId },
            },
          },
          { Put: { TableName: tableName, Item: storedItem({ pk: lookupPk(connection.id), sk: 'CONNECTION' }, ENTITY, record) } },
      ]),
    );
  } catch (error) {
    if (cancelledPositions(error)?.length) throw stateConflict(`The ${connection.psp} connection changed concurrently; retry the request`);
    throw error;
  } finally {
    recentConnections.forget([connection.id]);
  }
}

/** A connection item (either of the pair) written before credentials were sealed. */
export interface PlaintextConnectionItem {
  key: { pk: string; sk: string };
  connection: ProcessorConnection & { credentials: { plaintext: ProcessorCredentials } };
}

/**
 * Every connection item, page by page, for the one-off sealing of credentials stored in the clear
 * (bin/ops.ts): the operator's only Scan, never a function's (they are granted none).
 */
export async function* scanConnectionItems(): AsyncGenerator<{ sealed: number; plaintext: PlaintextConnectionItem[] }> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': ENTITY },
        ExclusiveStartKey: startKey,
      }),
    );
    const items = page.Items ?? [];
    const plaintext = items
      .filter((item) => item.credentials !== undefined)
      .map((item) => ({ key: { pk: item.pk as string, sk: item.sk as string }, connection: fromItem(item) as PlaintextConnectionItem['connection'] }));
    yield { sealed: items.length - plaintext.length, plaintext };
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * Replaces an item's plaintext credentials with the sealed ones, unless the item changed since it was
 * read (a connection replaced meanwhile is sealed already). True when it was replaced.
 */
export async function sealConnectionItem(item: PlaintextConnectionItem, sealed: Envelope): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: item.key,
        UpdateExpression: 'SET sealed_credentials = :sealed, api_access = :api_access REMOVE credentials',
        ConditionExpression: 'attribute_exists(credentials) AND id = :id AND updated_at = :updated_at',
        ExpressionAttributeValues: { ':sealed': sealed, ':api_access': item.connection.apiAccess, ':id': item.connection.id, ':updated_at': item.connection.updatedAt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  } finally {
    recentConnections.forget([item.connection.id]);
  }
}
