import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import type { ApiKeyRecord, GrantedScope, KeyGrant, KeyKind } from '../model/api-key.ts';
import { stateConflict } from '../model/errors.ts';
import type { Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { cancelledPositions, queryAll } from './dynamo.ts';
import { InstanceCache } from './instance-cache.ts';
import { epochSeconds, keyHashPk, merchantPk, tenantPk } from './keys.ts';
import type { MerchantSettings, StoredGrant } from '../model/merchant.ts';

const { db, tableName } = runtime;

/**
 * How long an instance reuses a key lookup, so a warm authenticated request costs the rate-limit write
 * and its own reads only. Revocation, rotation and merchant settings changes made by this instance
 * evict at once; other instances see them within this many seconds (docs/decisions.md, "Instance caches").
 */
export const KEY_CACHE_SECONDS = 30;
const recentGrants = new InstanceCache<KeyGrant>(KEY_CACHE_SECONDS, 1_000);

/** After a change to these key hashes' items: this instance's next request with them reads the change. */
export function forgetGrants(hashes: Iterable<string>): void {
  recentGrants.forget(hashes);
}

const recordSk = (keyId: string): string => `APIKEY#${keyId}`;
const HASH_SK = 'KEYHASH';

function recordItem(record: ApiKeyRecord) {
  return {
    pk: tenantPk(record.tenant),
    sk: recordSk(record.id),
    entity: 'api_key',
    id: record.id,
    merchant_id: record.tenant.merchantId,
    environment: record.tenant.environment,
    name: record.name,
    kind: record.kind,
    scopes: record.scopes,
    hint: record.hint,
    created_at: record.createdAt,
    valid_until: record.validUntil,
    rotated_at: record.rotatedAt,
    revoked_at: record.revokedAt,
    grants: record.grants,
  };
}

function recordFromItem(item: Record<string, unknown>): ApiKeyRecord {
  return {
    id: item.id as string,
    tenant: { merchantId: item.merchant_id as string, environment: item.environment as Tenant['environment'] },
    name: item.name as string,
    kind: item.kind as KeyKind,
    scopes: item.scopes as GrantedScope[],
    hint: item.hint as string,
    createdAt: item.created_at as string,
    validUntil: (item.valid_until as string | null) ?? null,
    rotatedAt: (item.rotated_at as string | null) ?? null,
    revokedAt: (item.revoked_at as string | null) ?? null,
    grants: (item.grants as StoredGrant[]) ?? [],
  };
}

function hashItem(hash: string, record: ApiKeyRecord, settings: MerchantSettings, validUntil: string | null) {
  return {
    pk: keyHashPk(hash),
    sk: HASH_SK,
    entity: 'api_key_hash',
    key_id: record.id,
    merchant_id: record.tenant.merchantId,
    environment: record.tenant.environment,
    kind: record.kind,
    scopes: record.scopes,
    valid_until: validUntil,
    settings,
    // Lets DynamoDB sweep hashes that can no longer authenticate; reads check valid_until themselves.
    expires_at: validUntil === null ? undefined : epochSeconds(new Date(validUntil)),
  };
}

const merchantVersionCheck = (settings: MerchantSettings, merchantId: string) => ({
  ConditionCheck: {
    TableName: tableName,
    Key: { pk: merchantPk(merchantId), sk: 'PROFILE' },
    ConditionExpression: 'settings_version = :version',
    ExpressionAttributeValues: { ':version': settings.settingsVersion },
  },
});

/**
 * Runs the writes, then evicts the key hashes they change from this instance's cache whatever the
 * outcome (a write that timed out may still have committed).
 */
async function transact(
  items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>,
  conflict: string,
  changedHashes: readonly string[] = [],
) {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (cancelledPositions(error)?.length) throw stateConflict(conflict);
    throw error;
  } finally {
    forgetGrants(changedHashes);
  }
}

export async function insertApiKey(record: ApiKeyRecord, hash: string, settings: MerchantSettings): Promise<void> {
  await transact(
    [
      merchantVersionCheck(settings, record.tenant.merchantId),
      { Put: { TableName: tableName, Item: recordItem(record), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: tableName,
          Item: hashItem(hash, record, settings, record.validUntil),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    'The merchant settings changed while the key was being created; retry the request',
  );
}

/** The grant for a presented key's hash, from this instance's cache when it read it in the last KEY_CACHE_SECONDS. */
export async function findGrant(hash: string): Promise<KeyGrant | undefined> {
  return recentGrants.peek(hash) ?? recentGrants.load(hash, () => readGrant(hash));
}

async function readGrant(hash: string): Promise<KeyGrant | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: keyHashPk(hash), sk: HASH_SK }, ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    keyId: Item.key_id as string,
    tenant: { merchantId: Item.merchant_id as string, environment: Item.environment as Tenant['environment'] },
    kind: Item.kind as KeyKind,
    scopes: Item.scopes as GrantedScope[],
    validUntil: (Item.valid_until as string | null) ?? null,
    settings: Item.settings as MerchantSettings,
  };
}

export async function findApiKey(tenant: Tenant, keyId: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: recordSk(keyId) }, ConsistentRead: true }),
  );
  return Item ? recordFromItem(Item) : undefined;
}

export async function getApiKey(tenant: Tenant, keyId: string): Promise<ApiKeyRecord> {
  const record = await findApiKey(tenant, keyId);
  if (!record) throw await missingResource(tenant, recordSk(keyId), 'API key', keyId);
  return record;
}

export async function listApiKeys(tenant: Tenant): Promise<ApiKeyRecord[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'APIKEY#' },
  });
  return items.map(recordFromItem);
}

/**
 * Swaps in a new secret. The previous hash keeps authenticating until `graceUntil`; the record's
 * grant list is the optimistic lock, so two concurrent rotations cannot both succeed.
 */
export async function replaceSecret(
  current: ApiKeyRecord,
  next: ApiKeyRecord,
  newHash: string,
  retiringHash: string,
  graceUntil: string,
  settings: MerchantSettings,
): Promise<void> {
  await transact(
    [
      merchantVersionCheck(settings, current.tenant.merchantId),
      {
        Put: {
          TableName: tableName,
          Item: recordItem(next),
          ConditionExpression: 'grants = :grants AND revoked_at = :null',
          ExpressionAttributeValues: { ':grants': current.grants, ':null': null },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: hashItem(newHash, next, settings, next.validUntil),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: { pk: keyHashPk(retiringHash), sk: HASH_SK },
          UpdateExpression: 'SET valid_until = :until, expires_at = :ttl',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':until': graceUntil, ':ttl': epochSeconds(new Date(graceUntil)) },
        },
      },
    ],
    `API key '${current.id}' changed while it was being rotated; retry the request`,
    [retiringHash],
  );
}

/** Marks the key revoked and deletes every hash that could still authenticate with it, in one transaction. */
export async function markRevoked(current: ApiKeyRecord, revokedAt: string): Promise<ApiKeyRecord> {
  const next: ApiKeyRecord = { ...current, revokedAt, grants: [] };
  await transact(
    [
      {
        Put: {
          TableName: tableName,
          Item: recordItem(next),
          ConditionExpression: 'grants = :grants AND revoked_at = :null',
          ExpressionAttributeValues: { ':grants': current.grants, ':null': null },
        },
      },
      ...current.grants.map((grant) => ({
        Delete: { TableName: tableName, Key: { pk: keyHashPk(grant.hash), sk: HASH_SK } },
      })),
    ],
    `API key '${current.id}' changed while it was being revoked; retry the request`,
    current.grants.map((grant) => grant.hash),
  );
  return next;
}
