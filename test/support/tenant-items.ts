import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { queryTenant } from '../../shared/store/shard-reads.ts';

/** Every item of a tenant with the given sort-key prefix, read straight from the table: its own key and its shards, in sort-key order. */
export function tenantItems(tenant: Tenant, prefix: string): Promise<Record<string, any>[]> {
  return queryTenant(tenant, { prefix }, { ConsistentRead: true });
}

/** Every item of the whole table (every merchant of every test), read page by page. */
export async function scanTable(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await runtime.db.send(new ScanCommand({ TableName: runtime.tableName, ExclusiveStartKey: startKey, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
