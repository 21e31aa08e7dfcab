import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { invalidApiKey, notFound, type ServiceError } from '../model/errors.ts';
import type { Tenant } from '../model/tenant.ts';
import { otherEnvironment, tenantKey } from './keys.ts';

const { db, tableName } = runtime;

/**
 * The error for an id that is not in the caller's tenant. §5 rule 1: using a test key on live data
 * (or the reverse) is invalid_api_key, so the other environment is checked, on misses only.
 */
export async function missingResource(tenant: Tenant, sk: string, resource: string, id: string): Promise<ServiceError> {
  const other = otherEnvironment(tenant);
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(other, sk), ProjectionExpression: 'pk' }),
  );
  if (!Item) return notFound(resource, id);
  return invalidApiKey(
    `No such ${resource}: '${id}'; it exists in ${other.environment} mode, but a ${tenant.environment} mode key was used to make this request.`,
  );
}
