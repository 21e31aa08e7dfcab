import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { stateConflict } from '../model/errors.ts';
import { tenantOf, type Tenant } from '../model/tenant.ts';
import { cancelledPositions, type Item } from './dynamo.ts';
import { InstanceCache } from './instance-cache.ts';
import { entityOf, storedItem } from './items.ts';
import { tenantPk } from './keys.ts';
import type { ProcessorConnection } from '../model/processor-connection.ts';

const { db, tableName } = runtime;

/**
 * How long an instance reuses a connection looked up for a webhook, so a warm receiver verifies
 * signatures without a read. A signature that fails against a cached copy is checked once more
 * against a fresh read (webhook-receiver.ts), so a replaced secret works at once everywhere.
 */
export const CONNECTION_CACHE_SECONDS = 60;
const recentConnections = new InstanceCache<ProcessorConnection>(CONNECTION_CACHE_SECONDS, 1_000);

const recordSk = (psp: string): string => `PROCESSOR#${psp}`;
/** Webhooks arrive with only the connection id in the URL: this item finds the tenant and secrets from it. */
const lookupPk = (connectionId: string): string => `CONNECTION#${connectionId}`;

const fromItem = (item: Item): ProcessorConnection => entityOf<ProcessorConnection>(item);

export async function findConnectionForPsp(tenant: Tenant, psp: string): Promise<ProcessorConnection | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: recordSk(psp) }, ConsistentRead: true }),
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
export async function saveConnection(connection: ProcessorConnection, previousId: string | null): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: storedItem({ pk: tenantPk(tenantOf(connection)), sk: recordSk(connection.psp) }, 'processor_connection', connection),
              ConditionExpression: previousId === null ? 'attribute_not_exists(pk)' : 'id = :id',
              ExpressionAttributeValues: previousId === null ? undefined : { ':id': previousId },
            },
          },
          { Put: { TableName: tableName, Item: storedItem({ pk: lookupPk(connection.id), sk: 'CONNECTION' }, 'processor_connection', connection) } },
        ],
      }),
    );
  } catch (error) {
    if (cancelledPositions(error)?.length) throw stateConflict(`The ${connection.psp} connection changed concurrently; retry the request`);
    throw error;
  } finally {
    recentConnections.forget([connection.id]);
  }
}
