import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { putVersioned } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { tenantKey } from './keys.ts';
import type { CancelSigningSecrets } from '../model/cancel-signing-secrets.ts';

const { db, tableName } = runtime;

/**
 * The secrets a tenant's cancel-session starts are signed with: one item in the tenant partition
 * holding the current secret and those rolled out still in their grace period. Stored readable (the
 * API shows it and the start recomputes the HMAC with it), as webhook signing secrets are.
 */
const SK = 'CANCELSIGNING';

const key = (tenant: Tenant) => (tenantKey(tenant, SK));

export async function findSigningSecrets(tenant: Tenant): Promise<CancelSigningSecrets | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key(tenant), ConsistentRead: true }));
  return Item ? entityOf<CancelSigningSecrets>(Item) : undefined;
}

/** Writes the secrets, first (previousVersion null) or over the version read; false when another request wrote first. */
export async function saveSigningSecrets(tenant: Tenant, record: CancelSigningSecrets, previousVersion: number | null): Promise<boolean> {
  return putVersioned(db, tableName, storedItem(key(tenant), 'cancel_signing_secrets', record), previousVersion);
}
