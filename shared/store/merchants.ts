import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import { notFound, stateConflict } from '../model/errors.ts';
import type { Plan } from '../model/plans.ts';
import { settingsOf, type Merchant, type MerchantChange, type StoredGrant } from '../model/merchant.ts';
import { ENVIRONMENTS, type Tenant } from '../model/tenant.ts';
import { forgetGrants } from './api-keys.ts';
import { cancelledPositions, isConditionFailure, queryAll } from './dynamo.ts';
import { keyHashPk, merchantPk, tenantPk } from './keys.ts';

const { db, tableName } = runtime;

const PROFILE = 'PROFILE';

function toItem(merchant: Merchant) {
  return {
    pk: merchantPk(merchant.id),
    sk: PROFILE,
    entity: 'merchant',
    id: merchant.id,
    name: merchant.name,
    plan: merchant.plan,
    rate_limit_override: merchant.rateLimitOverride,
    trial_ends_at: merchant.trialEndsAt,
    ip_allowlist: merchant.ipAllowlist,
    payment_update_url: merchant.paymentUpdateUrl,
    settings_version: merchant.settingsVersion,
    created_at: merchant.createdAt,
    updated_at: merchant.updatedAt,
  };
}

function fromItem(item: Record<string, unknown>): Merchant {
  return {
    id: item.id as string,
    name: item.name as string,
    plan: item.plan as Plan,
    rateLimitOverride: (item.rate_limit_override as number | null) ?? null,
    trialEndsAt: (item.trial_ends_at as string | null) ?? null,
    ipAllowlist: (item.ip_allowlist as string[]) ?? [],
    paymentUpdateUrl: (item.payment_update_url as string | null | undefined) ?? null,
    settingsVersion: item.settings_version as number,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
  };
}

export async function insertMerchant(merchant: Merchant): Promise<void> {
  try {
    await db.send(
      new PutCommand({ TableName: tableName, Item: toItem(merchant), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw stateConflict(`Merchant '${merchant.id}' already exists`);
    throw error;
  }
}

export async function findMerchant(merchantId: string): Promise<Merchant | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: merchantPk(merchantId), sk: PROFILE }, ConsistentRead: true }),
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
      for (const grant of (item.grants as StoredGrant[] | undefined) ?? []) {
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
  const next: Merchant = { ...current, ...change, settingsVersion: current.settingsVersion + 1, updatedAt: now.toISOString() };
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
      ExpressionAttributeValues: { ':version': current.settingsVersion },
    },
  };
  // The merchant write goes in the last chunk: if an earlier chunk fails, the version is unchanged and a retry redoes it all.
  const chunks: (typeof hashUpdates)[] = [];
  for (let i = 0; i < hashUpdates.length; i += TRANSACTION_LIMIT - 1) chunks.push(hashUpdates.slice(i, i + TRANSACTION_LIMIT - 1));
  if (chunks.length === 0) chunks.push([]);
  try {
    for (const [index, chunk] of chunks.entries()) {
      const items = index === chunks.length - 1 ? [...chunk, merchantPut] : chunk;
      await db.send(new TransactWriteCommand({ TransactItems: items }));
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
