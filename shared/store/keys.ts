import { createHash } from 'node:crypto';
import type { KeyKind } from '../model/api-key.ts';
import type { Tenant } from '../model/tenant.ts';

/**
 * Partition keys. Everything a merchant owns lives under its tenant partition (merchant + environment),
 * so a query built from an API key's tenant cannot reach another merchant's or environment's items.
 * The few partitions outside it are lookups that must work before the tenant is known (key hashes) or
 * are merchant-wide (the profile), and carry their own entity prefix.
 */
export const tenantPk = (tenant: Tenant): string => `TENANT#${tenant.merchantId}#${tenant.environment}`;

export const merchantPk = (merchantId: string): string => `MERCHANT#${merchantId}`;

/** Rate-limit logs get their own prefix so IAM can let read-only functions write them and nothing else. */
export const RATE_LIMIT_PK_PREFIX = 'RATE#';
/**
 * The rate-limit window of a merchant's environment. Publishable keys count in a window of their own:
 * they live in web pages, so anyone may use them, and must not spend the server keys' budget.
 */
export const rateLimitPk = (tenant: Tenant, kind: KeyKind): string =>
  `${RATE_LIMIT_PK_PREFIX}${tenant.merchantId}#${tenant.environment}${kind === 'publishable' ? '#publishable' : ''}`;

/** The cancel-session starts of a merchant's environment: counted apart from its API requests, against the same plan limit. */
export const cancelStartWindowPk = (tenant: Tenant): string => `${RATE_LIMIT_PK_PREFIX}${tenant.merchantId}#${tenant.environment}#cancel-start`;

/**
 * The cancel-session starts of one client address, whichever merchant they name. The address is
 * hashed: it is personal data, and the key only needs to tell addresses apart for a minute.
 */
export const clientStartWindowPk = (address: string): string =>
  `${RATE_LIMIT_PK_PREFIX}CLIENT#${createHash('sha256').update(address, 'utf8').digest('hex')}`;

/** Template test sends of a merchant's environment: a small window of their own, apart from the API's. */
export const testSendWindowPk = (tenant: Tenant): string => `${RATE_LIMIT_PK_PREFIX}${tenant.merchantId}#${tenant.environment}#test-send`;

export const keyHashPk = (hash: string): string => `KEYHASH#${hash}`;

export const otherEnvironment = (tenant: Tenant): Tenant => ({
  merchantId: tenant.merchantId,
  environment: tenant.environment === 'live' ? 'test' : 'live',
});

/** DynamoDB TTL wants epoch seconds. */
export const epochSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/**
 * Everything that belongs to one customer (payments, events about them, and whatever later holds
 * their data) carries this as `gsi1pk`, so the customer's payments list and GDPR erasure find it all
 * with one query. An item leaves the partition when its customer link is removed.
 */
export const customerOwnerPartition = (tenant: Tenant, customerId: string): string => `${tenantPk(tenant)}#CUSTOMER#${customerId}`;

/** Card-update page requests of one client address (hashed, as above), whichever link they name. */
export const updatePageClientWindowPk = (address: string): string =>
  `${RATE_LIMIT_PK_PREFIX}UPDATEPAGE#CLIENT#${createHash('sha256').update(address, 'utf8').digest('hex')}`;

/** Card-update page requests through one link (by its token's hash). */
export const updatePageLinkWindowPk = (tokenHash: string): string => `${RATE_LIMIT_PK_PREFIX}UPDATEPAGE#LINK#${tokenHash}`;
