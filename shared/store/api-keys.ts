import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { ApiKeyRecord, KeyGrant, KeyHash } from '../model/api-key.ts';
import { stateConflict } from '../model/errors.ts';
import { tenantOf, type Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { cancelledPositions, idempotentTransaction, queryAll, type Item, type TransactItems } from './dynamo.ts';
import { InstanceCache } from './instance-cache.ts';
import { entityOf, storedItem } from './items.ts';
import { epochSeconds, keyHashPk, merchantPk, tenantKey, tenantPk } from './keys.ts';
import type { MerchantSettings } from '../model/merchant.ts';

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

const recordKey = (tenant: Tenant, keyId: string) => tenantKey(tenant, recordSk(keyId));
const hashKey = (hash: string) => ({ pk: keyHashPk(hash), sk: HASH_SK });

const recordItem = (record: ApiKeyRecord) => storedItem(recordKey(tenantOf(record), record.id), 'api_key', record);

const recordFromItem = (item: Item): ApiKeyRecord => entityOf<ApiKeyRecord>(item, [], { valid_until: null, rotated_at: null, revoked_at: null, grants: [] });

function hashItem(hash: string, record: ApiKeyRecord, settings: MerchantSettings, validUntil: string | null) {
  const { id: key_id, merchant_id, environment, kind, scopes } = record;
  const granted: KeyHash = { key_id, merchant_id, environment, kind, scopes, valid_until: validUntil, settings };
  // Lets DynamoDB sweep hashes that can no longer authenticate; reads check valid_until themselves.
  return storedItem(hashKey(hash), 'api_key_hash', granted, { expires_at: validUntil === null ? undefined : epochSeconds(new Date(validUntil)) });
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
  items: TransactItems,
  conflict: string,
  changedHashes: readonly string[] = [],
) {
  try {
    await db.send(idempotentTransaction(items));
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
      merchantVersionCheck(settings, record.merchant_id),
      { Put: { TableName: tableName, Item: recordItem(record), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: tableName,
          Item: hashItem(hash, record, settings, record.valid_until),
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
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: hashKey(hash), ConsistentRead: true }));
  if (!Item) return undefined;
  const granted = entityOf<KeyHash>(Item, ['expires_at'], { valid_until: null });
  return { ...granted, tenant: tenantOf(granted) };
}

export async function findApiKey(tenant: Tenant, keyId: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: recordKey(tenant, keyId), ConsistentRead: true }),
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
      merchantVersionCheck(settings, current.merchant_id),
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
          Item: hashItem(newHash, next, settings, next.valid_until),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: hashKey(retiringHash),
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
  const next: ApiKeyRecord = { ...current, revoked_at: revokedAt, grants: [] };
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
        Delete: { TableName: tableName, Key: hashKey(grant.hash) },
      })),
    ],
    `API key '${current.id}' changed while it was being revoked; retry the request`,
    current.grants.map((grant) => grant.hash),
  );
  return next;
}
