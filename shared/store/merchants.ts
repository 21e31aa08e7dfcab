import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { notFound, stateConflict } from '../model/errors.ts';
import type { ApiKeyRecord } from '../model/api-key.ts';
import { settingsOf, type Merchant, type MerchantChange } from '../model/merchant.ts';
import { ENVIRONMENTS, type Tenant } from '../model/tenant.ts';
import { forgetGrants } from './api-keys.ts';
import { cancelledPositions, idempotentTransaction, isConditionFailure, queryAll, storedAsWritten, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { keyHashPk, merchantPk, tenantPk } from './keys.ts';

const { db, tableName } = runtime;

const PROFILE = 'PROFILE';

const merchantKey = (merchantId: string) => ({ pk: merchantPk(merchantId), sk: PROFILE });

const toItem = (merchant: Merchant) => storedItem(merchantKey(merchant.id), 'merchant', merchant);

/** Profiles written before these fields existed read as having none. */
const fromItem = (item: Item): Merchant =>
  entityOf<Merchant>(item, [], { rate_limit_override: null, trial_ends_at: null, ip_allowlist: [], payment_update_url: null });

export async function insertMerchant(merchant: Merchant): Promise<void> {
  try {
    await db.send(
      new PutCommand({ TableName: tableName, Item: toItem(merchant), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (await storedAsWritten(db, tableName, toItem(merchant))) return;
    throw stateConflict(`Merchant '${merchant.id}' already exists`);
  }
}

export async function findMerchant(merchantId: string): Promise<Merchant | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: merchantKey(merchantId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

export async function getMerchant(merchantId: string): Promise<Merchant> {
  const merchant = await findMerchant(merchantId);
  if (!merchant) throw notFound('merchant', merchantId);
  return merchant;
}

/** Key-hash items of every environment that still grant access, so settings can be copied onto them. */
async function liveKeyHashes(merchantId: string, now: Date): Promise<string[]> {
  const hashes: string[] = [];
  for (const environment of ENVIRONMENTS) {
    const tenant: Tenant = { merchantId, environment };
    const records = await queryAll(db, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'APIKEY#' },
      ProjectionExpression: 'grants',
      ConsistentRead: true,
    });
    for (const item of records) {
      for (const grant of entityOf<Pick<ApiKeyRecord, 'grants'>>(item, [], { grants: [] }).grants) {
        // A rotated-out hash past its grace no longer grants anything; TTL may not have removed it yet.
        if (grant.expires_at === null || grant.expires_at > now.toISOString()) hashes.push(grant.hash);
      }
    }
  }
  return hashes;
}

const TRANSACTION_LIMIT = 100;

/**
 * Changes a merchant's settings and every key-hash copy of them. The version condition makes a
 * concurrent key creation or second update fail instead of leaving a key with stale settings.
 */
export async function updateMerchantSettings(
  merchantId: string,
  change: MerchantChange,
  now: Date,
): Promise<Merchant> {
  const current = await getMerchant(merchantId);
  const next: Merchant = { ...current, ...change, settings_version: current.settings_version + 1, updated_at: now.toISOString() };
  const hashes = await liveKeyHashes(merchantId, now);
  const settings = settingsOf(next);
  const hashUpdates = hashes.map((hash) => ({
    Update: {
      TableName: tableName,
      Key: { pk: keyHashPk(hash), sk: 'KEYHASH' },
      UpdateExpression: 'SET settings = :settings',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':settings': settings },
    },
  }));
  const merchantPut = {
    Put: {
      TableName: tableName,
      Item: toItem(next),
      ConditionExpression: 'settings_version = :version',
      ExpressionAttributeValues: { ':version': current.settings_version },
    },
  };
  // The merchant write goes in the last chunk: if an earlier chunk fails, the version is unchanged and a retry redoes it all.
  const chunks: (typeof hashUpdates)[] = [];
  for (let i = 0; i < hashUpdates.length; i += TRANSACTION_LIMIT - 1) chunks.push(hashUpdates.slice(i, i + TRANSACTION_LIMIT - 1));
  if (chunks.length === 0) chunks.push([]);
  try {
    for (const [index, chunk] of chunks.entries()) {
      const items = index === chunks.length - 1 ? [...chunk, merchantPut] : chunk;
      await db.send(idempotentTransaction(items));
    }
  } catch (error) {
    if (cancelledPositions(error)?.length) throw stateConflict(`Merchant '${merchantId}' changed concurrently; retry the update`);
    throw error;
  } finally {
    // Chunks that committed changed their keys; this instance's next request with them reads the new settings.
    forgetGrants(hashes);
  }
  return next;
}
