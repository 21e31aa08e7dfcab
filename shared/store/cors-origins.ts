import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * The public origin registry: one item per (origin, tenant) whose active cancel flow allows that
 * origin. A CORS preflight carries no body, so for `POST /api/cancel-session/start` the merchant is
 * not known yet; the preflight can only ask "does any merchant's active flow allow this origin?",
 * which is one query here. Written in the same transactions that activate, change or archive the
 * active flow, so it never lists an origin no active flow allows.
 */
const originPk = (origin: string): string => `CORSORIGIN#${origin}`;

export function registerOriginWrite(tenant: Tenant, origin: string, flowId: string): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { pk: originPk(origin), sk: tenantPk(tenant), entity: 'cors_origin', origin, cancel_flow_id: flowId },
    },
  };
}

export function unregisterOriginWrite(tenant: Tenant, origin: string): TransactItem {
  return { Delete: { TableName: tableName, Key: { pk: originPk(origin), sk: tenantPk(tenant) } } };
}

export async function isRegisteredOrigin(origin: string): Promise<boolean> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': originPk(origin) },
      ProjectionExpression: 'pk',
      Limit: 1,
    }),
  );
  return Items.length > 0;
}
