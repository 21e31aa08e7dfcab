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

/**
 * A busy tenant's items are spread over this many partitions (`TENANT#<m>#<env>#<s>`): one key
 * takes at most 1,000 write units a second, and a renewal day of one large merchant writes about
 * twice that (docs/data-model.md, "One tenant's busiest keys").
 */
export const TENANT_SHARDS = 4;

/**
 * Sort-key prefixes of the items written per failure, per event or per API request: these go to a
 * shard. The rest of a tenant (API keys, campaigns, templates, cancel flows and feedback, webhook
 * endpoints, branding, processor connections, signing secrets, usage, erasure records) is written by
 * hand or once per many failures, stays on the tenant's own key, and is listed with one Query.
 */
const SHARDED_PREFIXES = [
  'PAYMENT#', 'PAYREF#', 'SETTLED#', 'CUSTOMER#', 'CUSTREF#', 'CUSTSEARCH#', 'EVENT#', 'ERASED#', 'IDEMPOTENCY#',
  'ANALYTICS#', 'ANALYTICS_APPLIED#', 'WHDELIVERY#', 'ENROLLMENT#', 'MESSAGED#', 'CARDLEDGER#', 'STATS#', 'RANK#',
];
/** A customer's enrollments are read together (by customer prefix): they share the shard of their customer. */
const GROUPED_PREFIXES = ['ENROLLMENT#'];
/**
 * Counter items end in their shard number already (the counted item's): spread by it, so one
 * bucket's shards sit on four keys. Analytics aggregates written before they were split end in a
 * letter or an id: any deterministic place will do for those.
 */
const NUMBERED_PREFIXES = ['STATS#', 'RANK#', 'ANALYTICS#'];

/** FNV-1a of the sort key: cheap, stable across runtimes, even enough over ids. */
function shardOfSortKey(sk: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < sk.length; i++) hash = Math.imul(hash ^ sk.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % TENANT_SHARDS;
}

/** The partition holding sort key `sk` of the tenant whose own key is `base` (also what `ops tenants shard` moves old items to). */
export function tenantPartitionOf(base: string, sk: string): string {
  if (!SHARDED_PREFIXES.some((prefix) => sk.startsWith(prefix))) return base;
  if (NUMBERED_PREFIXES.some((prefix) => sk.startsWith(prefix)) && /\d$/.test(sk)) return `${base}#${Number(sk.at(-1)) % TENANT_SHARDS}`;
  return `${base}#${shardOfSortKey(groupOf(sk) ?? sk)}`;
}

/** For grouped items, the part of the key their group shares (`ENROLLMENT#<customer>#`), once the key names it. */
function groupOf(sk: string): string | undefined {
  const prefix = GROUPED_PREFIXES.find((grouped) => sk.startsWith(grouped));
  const end = prefix === undefined ? -1 : sk.indexOf('#', prefix.length);
  return end === -1 ? undefined : sk.slice(0, end + 1);
}

/** The table key of a tenant's item: every store module names tenant items through this, so a read by key still names one partition. */
export const tenantKey = (tenant: Tenant, sk: string): { pk: string; sk: string } => ({ pk: tenantPartitionOf(tenantPk(tenant), sk), sk });

/**
 * The partitions that can hold a tenant's items whose sort keys start with `prefix`: its own key, every
 * shard, or (a prefix both kinds share, such as the empty one) all of them.
 */
export function tenantPartitions(tenant: Tenant, prefix: string): string[] {
  const base = tenantPk(tenant);
  const shards = Array.from({ length: TENANT_SHARDS }, (_, shard) => `${base}#${shard}`);
  if (groupOf(prefix) !== undefined) return [tenantPartitionOf(base, prefix)];
  if (SHARDED_PREFIXES.some((sharded) => prefix.startsWith(sharded))) return shards;
  return SHARDED_PREFIXES.some((sharded) => sharded.startsWith(prefix)) ? [base, ...shards] : [base];
}

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
