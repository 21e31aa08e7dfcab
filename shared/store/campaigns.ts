import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { definitionOf, isCalendarTrigger, type Campaign, type CampaignCounts, type CampaignDefinition } from '../model/campaign.ts';
import type { Environment, Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { batchWriteAll, queryAll, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { recordEventWrite } from './events.ts';
import { tenantKey, tenantPk } from './keys.ts';
import { templateReferenceWrite } from './message-templates.ts';
import { transact, type TransactItem } from './transactions.ts';
import type { CampaignVersion } from '../model/campaign.ts';
import type { ServiceEvent } from '../model/events.ts';

const { db, tableName } = runtime;

/**
 * Campaign items (docs/data-model.md): the campaign itself, one immutable item per definition version
 * (enrollments keep the version they joined, §3.1), and one per-tenant counts item the plan limits
 * are enforced on. Versions use their own prefix so a `begins_with(sk, 'CAMPAIGN#')` query reads
 * campaigns only.
 */
export const campaignSk = (campaignId: string): string => `CAMPAIGN#${campaignId}`;
const CAMPAIGN_PREFIX = 'CAMPAIGN#';
/** Zero-padded so a campaign's versions sort in order. */
export const campaignVersionSk = (campaignId: string, version: number): string =>
  `CAMPAIGN_VERSION#${campaignId}#${String(version).padStart(8, '0')}`;
const COUNTS_SK = 'CAMPAIGN_COUNTS';

/**
 * How a conditional campaign write ended. `changed`: the campaign is no longer in the status and
 * version it was read in (or the transaction raced another); read it again and decide.
 * `over_limit`: the plan's campaign count would be exceeded.
 */
export type CampaignWrite = 'written' | 'changed' | 'over_limit';

/**
 * Every tenant's active calendar campaigns (card_expiring, pre_dunning), one sparse gsi4 entry each
 * on the campaign item: the daily calendar sweep's list of tenants to scan, read without touching any
 * tenant partition. Locally the partition carries the process's scope, since test files share one
 * table and each file's sweep must see only its own campaigns.
 */
const calendarRegistryPk = (): string => `CALENDAR_CAMPAIGNS${runtime.registryScope}`;

type RegistryKeys = { gsi4pk: string; gsi4sk: string } | null;

function registryKeys(tenant: Tenant, campaign: Pick<Campaign, 'id' | 'status' | 'trigger'>): RegistryKeys {
  if (campaign.status !== 'active' || !isCalendarTrigger(campaign.trigger)) return null;
  return { gsi4pk: calendarRegistryPk(), gsi4sk: `${tenant.merchantId}#${tenant.environment}#${campaign.id}` };
}

const toItem = (tenant: Tenant, campaign: Campaign) =>
  storedItem(tenantKey(tenant, campaignSk(campaign.id)), 'campaign', campaign, registryKeys(tenant, campaign) ?? {});

const fromItem = (item: Item): Campaign => entityOf<Campaign>(item);

function versionItem(tenant: Tenant, campaign: Campaign, savedAt: string) {
  const version: CampaignVersion = { campaign_id: campaign.id, version: campaign.version, created_at: savedAt, ...definitionOf(campaign) };
  return storedItem(tenantKey(tenant, campaignVersionSk(campaign.id, campaign.version)), 'campaign_version', version);
}

/** `SET #f0 = :f0, …` over exactly the given attributes (names are aliased: `name`, `status` are reserved words). */
function setClause(values: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const vals: Record<string, unknown> = {};
  const sets = Object.entries(values).map(([field, value], i) => {
    names[`#f${i}`] = field;
    vals[`:f${i}`] = value;
    return `#f${i} = :f${i}`;
  });
  return { expression: `SET ${sets.join(', ')}`, names, values: vals };
}

/**
 * The campaign write, only if it is still in the status and version it was read in. It also keeps the
 * calendar registry entry in step with the status and trigger the campaign ends up with.
 */
function campaignUpdate(tenant: Tenant, read: Campaign, changes: Record<string, unknown>, next: Campaign): TransactItem {
  const registry = registryKeys(tenant, next);
  const set = setClause(registry ? { ...changes, ...registry } : changes);
  return {
    Update: {
      TableName: tableName,
      Key: tenantKey(tenant, campaignSk(read.id)),
      UpdateExpression: registry ? set.expression : `${set.expression} REMOVE gsi4pk, gsi4sk`,
      ConditionExpression: '#status = :read_status AND #version = :read_version',
      ExpressionAttributeNames: { ...set.names, '#status': 'status', '#version': 'version' },
      ExpressionAttributeValues: { ...set.values, ':read_status': read.status, ':read_version': read.version },
    },
  };
}

const COUNT_ATTRIBUTE: Readonly<Record<keyof CampaignCounts, string>> = { open: 'open_campaigns', active: 'active_campaigns' };

/**
 * Moves the tenant's campaign counts in the transaction that changes the campaigns, so the plan
 * limits hold exactly however many requests run at once. Each count that grows must stay within
 * its limit; undefined when nothing changes.
 */
function countsUpdate(tenant: Tenant, change: CampaignCounts, limits: CampaignCounts): TransactItem | undefined {
  const changed = (Object.keys(COUNT_ATTRIBUTE) as (keyof CampaignCounts)[]).filter((count) => change[count] !== 0);
  if (changed.length === 0) return undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':entity': 'campaign_counts' };
  const conditions: string[] = [];
  for (const count of changed) {
    names[`#${count}`] = COUNT_ATTRIBUTE[count];
    values[`:${count}`] = change[count];
    if (change[count] > 0) {
      values[`:${count}_max`] = limits[count] - change[count];
      conditions.push(`(attribute_not_exists(#${count}) OR #${count} <= :${count}_max)`);
    }
  }
  return {
    Update: {
      TableName: tableName,
      Key: tenantKey(tenant, COUNTS_SK),
      UpdateExpression: `ADD ${changed.map((count) => `#${count} :${count}`).join(', ')} SET entity = :entity`,
      ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

function exceedsLimit(change: CampaignCounts, limits: CampaignCounts): boolean {
  // A limit below the growth cannot be met even from zero, and `attribute_not_exists` would let it pass.
  return (Object.keys(COUNT_ATTRIBUTE) as (keyof CampaignCounts)[]).some((count) => change[count] > 0 && limits[count] < change[count]);
}

/** Commits the writes; a failed condition on the counts item alone means the plan limit, anything else a change under us. */
async function commit(items: (TransactItem | undefined)[], counts?: TransactItem): Promise<CampaignWrite> {
  const writes = items.filter((item): item is TransactItem => item !== undefined);
  const result = await transact(writes);
  if (result.committed) return 'written';
  const countsIndex = counts === undefined ? -1 : writes.indexOf(counts);
  const failed = result.failedConditions;
  return failed.length > 0 && failed.every((index) => index === countsIndex) ? 'over_limit' : 'changed';
}

/**
 * A new campaign (draft), its version 1, and one more campaign counted against the plan. Each of the
 * merchant's own templates its steps name (`storedTemplateIds`) must still exist, and is marked
 * referenced, so a deletion that checked for references before this commit fails (message-templates.ts).
 */
export async function insertCampaign(
  tenant: Tenant,
  campaign: Campaign,
  change: CampaignCounts,
  limits: CampaignCounts,
  storedTemplateIds: readonly string[],
): Promise<CampaignWrite> {
  if (exceedsLimit(change, limits)) return 'over_limit';
  const counts = countsUpdate(tenant, change, limits);
  return commit(
    [
      { Put: { TableName: tableName, Item: toItem(tenant, campaign), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: tableName, Item: versionItem(tenant, campaign, campaign.created_at), ConditionExpression: 'attribute_not_exists(pk)' } },
      counts,
      ...storedTemplateIds.map((id) => templateReferenceWrite(tenant, id)),
    ],
    counts,
  );
}

/**
 * A new definition version: the campaign's definition fields (never its counters, which the engine
 * moves concurrently) and the immutable version item, together.
 */
export async function saveDefinition(tenant: Tenant, read: Campaign, next: Campaign, storedTemplateIds: readonly string[]): Promise<CampaignWrite> {
  return commit(
    [
      campaignUpdate(tenant, read, { ...definitionOf(next), version: next.version, updated_at: next.updated_at }, next),
      { Put: { TableName: tableName, Item: versionItem(tenant, next, next.updated_at), ConditionExpression: 'attribute_not_exists(pk)' } },
      ...storedTemplateIds.map((id) => templateReferenceWrite(tenant, id)),
    ],
  );
}

/** A status change and what it does to the plan counts, conditioned on the status and version read. */
export async function saveStatus(
  tenant: Tenant,
  read: Campaign,
  next: Campaign,
  change: CampaignCounts,
  limits: CampaignCounts,
  event: ServiceEvent,
): Promise<CampaignWrite> {
  if (exceedsLimit(change, limits)) return 'over_limit';
  const counts = countsUpdate(tenant, change, limits);
  return commit(
    [
      campaignUpdate(
        tenant,
        read,
        { status: next.status, updated_at: next.updated_at, activated_at: next.activated_at, paused_at: next.paused_at, archived_at: next.archived_at },
        next,
      ),
      counts,
      recordEventWrite(tenant, event),
    ],
    counts,
  );
}

/** DynamoDB transactions take at most 100 writes; the campaign and the counts use two. */
const VERSIONS_PER_TRANSACTION = 98;

/**
 * Removes a campaign and every version of it. The campaign delete is conditioned on the status and
 * version read, so a version saved meanwhile fails it instead of being left behind. A draft with more
 * versions than fit in one transaction has the rest deleted right after; they are unreachable by then.
 */
export async function removeCampaign(tenant: Tenant, read: Campaign, change: CampaignCounts): Promise<CampaignWrite> {
  const versionKeys = Array.from({ length: read.version }, (_, i) => (tenantKey(tenant, campaignVersionSk(read.id, i + 1))));
  const outcome = await commit(
    [
      {
        Delete: {
          TableName: tableName,
          Key: tenantKey(tenant, campaignSk(read.id)),
          ConditionExpression: '#status = :read_status AND #version = :read_version',
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: { ':read_status': read.status, ':read_version': read.version },
        },
      },
      countsUpdate(tenant, change, { open: 0, active: 0 }),
      ...versionKeys.slice(0, VERSIONS_PER_TRANSACTION).map((Key) => ({ Delete: { TableName: tableName, Key } })),
    ],
  );
  if (outcome !== 'written') return outcome;
  await batchWriteAll(db, tableName, versionKeys.slice(VERSIONS_PER_TRANSACTION).map((Key) => ({ DeleteRequest: { Key } })));
  return outcome;
}

export async function findCampaign(tenant: Tenant, campaignId: string): Promise<Campaign | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, campaignSk(campaignId)), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** The campaign, or 404 (401 when it lives in the other environment, §5 rule 1). */
export async function getCampaign(tenant: Tenant, campaignId: string): Promise<Campaign> {
  const campaign = await findCampaign(tenant, campaignId);
  if (!campaign) throw await missingResource(tenant, campaignSk(campaignId), 'campaign', campaignId);
  return campaign;
}

/** The definition an enrollment joined; every version of a campaign that still exists is readable. */
export async function findCampaignVersion(tenant: Tenant, campaignId: string, version: number): Promise<CampaignVersion | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, campaignVersionSk(campaignId, version)) }),
  );
  return Item ? entityOf<CampaignVersion>(Item) : undefined;
}

/**
 * Every campaign of the tenant. A tenant has at most a few hundred (the plans cap those not archived),
 * so lists read them all and filter and sort in memory (docs/data-model.md).
 */
export async function listCampaignItems(tenant: Tenant): Promise<Campaign[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': CAMPAIGN_PREFIX },
    ConsistentRead: true,
  });
  return items.map(fromItem);
}

/** Every saved definition version of the tenant's campaigns (what enrollments follow), read whole. */
export async function listCampaignVersions(tenant: Tenant): Promise<CampaignVersion[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': 'CAMPAIGN_VERSION#' },
    ConsistentRead: true,
  });
  return items.map((item) => entityOf<CampaignVersion>(item));
}

/** Tenants with at least one active calendar campaign (from the registry; eventually consistent, so the scan re-reads the campaigns). */
export async function tenantsWithCalendarCampaigns(): Promise<Tenant[]> {
  const entries = await queryAll(db, {
    TableName: tableName,
    IndexName: 'gsi4',
    KeyConditionExpression: 'gsi4pk = :pk',
    ExpressionAttributeValues: { ':pk': calendarRegistryPk() },
    ProjectionExpression: 'gsi4sk',
  });
  const tenants = new Map<string, Tenant>();
  for (const entry of entries) {
    const [merchantId, environment] = String(entry.gsi4sk).split('#') as [string, Environment];
    tenants.set(`${merchantId}#${environment}`, { merchantId, environment });
  }
  return [...tenants.values()];
}

/** The counts the plan limits are enforced on (zero before the first campaign). */
export async function campaignCounts(tenant: Tenant): Promise<CampaignCounts> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: tenantKey(tenant, COUNTS_SK), ConsistentRead: true }));
  const counts = Item && entityOf<Partial<Record<'open_campaigns' | 'active_campaigns', number>>>(Item);
  return { open: counts?.open_campaigns ?? 0, active: counts?.active_campaigns ?? 0 };
}
