import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { defaultBranding, type Branding, type StoredBranding } from '../model/branding.ts';
import type { Tenant } from '../model/tenant.ts';
import { putVersioned } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { tenantKey } from './keys.ts';
import { findMerchant } from './merchants.ts';

const { db, tableName } = runtime;

const BRANDING_SK = 'SETTINGS#branding';

const brandingKey = (tenant: Tenant) => (tenantKey(tenant, BRANDING_SK));

/** The branding the merchant stored for this environment, if any. */
export async function findStoredBranding(tenant: Tenant): Promise<StoredBranding | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: brandingKey(tenant), ConsistentRead: true }));
  return Item ? entityOf<StoredBranding>(Item) : undefined;
}

/**
 * The branding messages and pages use: the stored one, else defaults from the merchant's name (the
 * store's one read of the profile for it), else a neutral name for a merchant that has none.
 */
export async function brandingOf(tenant: Tenant): Promise<Branding> {
  const stored = await findStoredBranding(tenant);
  if (stored) {
    const { name, logo_url, accent_color, support_email } = stored;
    return { name, logo_url, accent_color, support_email };
  }
  const merchant = await findMerchant(tenant.merchantId);
  return defaultBranding(merchant?.name ?? 'your subscription');
}

/** Stores a branding: the first (previousVersion null) only where none is, later ones over the version read; false when another write came first. */
export async function saveBranding(tenant: Tenant, branding: StoredBranding, previousVersion: number | null): Promise<boolean> {
  return putVersioned(db, tableName, storedItem(brandingKey(tenant), 'branding', branding), previousVersion);
}
