import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { queryAll } from '../../shared/store/dynamo.ts';
import { tenantPk } from '../../shared/store/keys.ts';

/** Every item in a tenant's partition with the given sort-key prefix, read straight from the table. */
export function tenantItems(tenant: Tenant, prefix: string): Promise<Record<string, any>[]> {
  return queryAll(runtime.db, {
    TableName: runtime.tableName,
    KeyConditionExpression: prefix === '' ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: prefix === '' ? { ':pk': tenantPk(tenant) } : { ':pk': tenantPk(tenant), ':prefix': prefix },
    ConsistentRead: true,
  });
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
