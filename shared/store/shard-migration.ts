import { DeleteCommand, GetCommand, paginateQuery, paginateScan, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { cancelledPositions, storedAsWritten, type Item, type TransactItems } from './dynamo.ts';
import { tenantPartitionOf, tenantPk } from './keys.ts';

const { db, tableName } = runtime;

/**
 * Moving a table written before tenants were sharded (keys.ts) onto the sharded keys: every item
 * under a tenant's own key whose sort key now belongs to a shard is put there and deleted from the
 * old key in one transaction, so an interruption leaves each item in exactly one place and a second
 * run moves what the first did not. Run by `ops tenants shard` before traffic reaches the code that
 * reads shards (docs/data-model.md, "Moving an existing table").
 */

/** A tenant's own key: `TENANT#<merchant>#<live|test>`, nothing after it. */
const TENANT_KEY = /^TENANT#[^#]+#(live|test)$/;

/** A transaction holds up to 100 items: 25 moves (a put and a delete each) stay well inside it and its 4 MB. */
const MOVES_PER_TRANSACTION = 25;

export interface ShardMigrationReport {
  /** Items read under tenants' own keys. */
  examined: number;
  /** Items put on their shard and deleted from the old key by this run. */
  moved: number;
  /** Items that stay on the tenant's own key (configuration). */
  unsharded: number;
  /** Items found on both keys, the same on each (a copy this command made earlier): the old one deleted. */
  already_moved: number;
  /** Items found on both keys, different: both left as they are, for an operator to look at. */
  conflicts: { pk: string; sk: string }[];
}

/**
 * Moves one tenant's items (a Query of its own key), or every tenant's (a Scan of the table, once:
 * the operator's, never a function's).
 */
export async function moveToShards(tenant?: Tenant): Promise<ShardMigrationReport> {
  const report: ShardMigrationReport = { examined: 0, moved: 0, unsharded: 0, already_moved: 0, conflicts: [] };
  for await (const page of tenant ? tenantPages(tenant) : tablePages()) {
    const moving = page.filter((item) => TENANT_KEY.test(item.pk as string));
    report.examined += moving.length;
    const movable = moving.filter((item) => tenantPartitionOf(item.pk as string, item.sk as string) !== item.pk);
    report.unsharded += moving.length - movable.length;
    for (let start = 0; start < movable.length; start += MOVES_PER_TRANSACTION) {
      await moveChunk(movable.slice(start, start + MOVES_PER_TRANSACTION), report);
    }
  }
  return report;
}

async function* tenantPages(tenant: Tenant): AsyncGenerator<Item[]> {
  const pages = paginateQuery({ client: db }, { TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': tenantPk(tenant) }, ConsistentRead: true });
  for await (const page of pages) yield page.Items ?? [];
}

async function* tablePages(): AsyncGenerator<Item[]> {
  const pages = paginateScan({ client: db }, { TableName: tableName, FilterExpression: 'begins_with(pk, :tenant)', ExpressionAttributeValues: { ':tenant': 'TENANT#' }, ConsistentRead: true });
  for await (const page of pages) yield page.Items ?? [];
}

const moveOf = (item: Item): TransactItems => [
  { Put: { TableName: tableName, Item: { ...item, pk: tenantPartitionOf(item.pk as string, item.sk as string) }, ConditionExpression: 'attribute_not_exists(pk)' } },
  { Delete: { TableName: tableName, Key: { pk: item.pk, sk: item.sk }, ConditionExpression: 'attribute_exists(pk)' } },
];

/** The moves of a chunk in one transaction; when one of them finds its item already on the shard, each alone. */
async function moveChunk(items: readonly Item[], report: ShardMigrationReport): Promise<void> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items.flatMap(moveOf) }));
    report.moved += items.length;
    return;
  } catch (error) {
    if (!cancelledPositions(error)?.length) throw error;
  }
  for (const item of items) await moveOne(item, report);
}

async function moveOne(item: Item, report: ShardMigrationReport): Promise<void> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: moveOf(item) }));
    report.moved += 1;
    return;
  } catch (error) {
    if (!cancelledPositions(error)?.length) throw error;
  }
  const { Item: old } = await db.send(new GetCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }));
  // Gone from the old key: another run moved it meanwhile.
  if (!old) return;
  if (!(await storedAsWritten(db, tableName, { ...old, pk: tenantPartitionOf(item.pk as string, item.sk as string) }))) {
    report.conflicts.push({ pk: item.pk as string, sk: item.sk as string });
    return;
  }
  await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk } }));
  report.already_moved += 1;
}
