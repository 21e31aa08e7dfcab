import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/composition.ts';
import type { Tenant } from '../../shared/domain/tenant.ts';
import { tenantPk } from '../../shared/store/keys.ts';

/** Every item in a tenant's partition with the given sort-key prefix, read straight from the table. */
export async function tenantItems(tenant: Tenant, prefix: string): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await runtime.db.send(
      new QueryCommand({
        TableName: runtime.tableName,
        KeyConditionExpression: prefix === '' ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: prefix === '' ? { ':pk': tenantPk(tenant) } : { ':pk': tenantPk(tenant), ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
