import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { epochSeconds, tenantKey } from './keys.ts';
import { shardOf } from './list-counters.ts';
import { transact } from './transactions.ts';
import { queryTenant } from './shard-reads.ts';

const { db, tableName } = runtime;

/**
 * Recovery aggregates: one item per tenant, day (UTC, of the payment's failure), processor and
 * currency, holding counters only. sk `ANALYTICS#RECOVERY#<yyyy-mm-dd>#<psp>#<currency>`, so a date
 * range is one sort-key range. Every increment is an atomic ADD in a transaction with a marker item
 * `ANALYTICS_APPLIED#<aggregate>#<event id>` written only if absent: a redelivered event finds its
 * marker and adds nothing.
 */
export type Counters = Record<string, number>;

export interface RecoveryAggregate {
  day: string;
  psp: string;
  currency: string;
  counters: Counters;
}

const PREFIX = 'ANALYTICS#RECOVERY#';
/** Markers only need to outlive the stream's redelivery window (24 h retention); a week is ample. */
const MARKER_TTL_SECONDS = 7 * 86_400;

export const recoveryAggregateSk = (day: string, psp: string, currency: string): string => `${PREFIX}${day}#${psp}#${currency}`;

/**
 * Adds the counters once per (event, aggregate); false when this event was already counted. `once`
 * may instead name a fact about a payment (`retried#pay_…`) that many events show but that counts
 * once for good: its marker never expires, as the payment it counts does not.
 */
export async function addOnce(
  tenant: Tenant,
  aggregate: string,
  sk: string,
  eventId: string,
  counters: Counters,
  dimensions: Record<string, string>,
  now: Date,
  once: 'per-event' | 'for-good' = 'per-event',
): Promise<boolean> {
  const markerKey = tenantKey(tenant, `ANALYTICS_APPLIED#${aggregate}#${eventId}`);
  // A fact counted for good is shown again by most of its payment's later events (each retry's
  // failure): an eventually consistent read, a fortieth of the price of the transaction its marker
  // would refuse (failed conditions are billed as writes), tells those apart; a read that misses a
  // fresh marker leaves the transaction's condition to refuse it, as before.
  if (once === 'for-good' && (await db.send(new GetCommand({ TableName: tableName, Key: markerKey, ProjectionExpression: 'pk' }))).Item) return false;
  const names = Object.keys(counters);
  const dimensionNames = Object.keys(dimensions);
  const outcome = await transact([
    {
      Put: {
        TableName: tableName,
        Item: {
          ...markerKey,
          entity: 'analytics_marker',
          ...(once === 'per-event' ? { expires_at: epochSeconds(now) + MARKER_TTL_SECONDS } : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: tableName,
        // Split like the list counters (by what is counted), so one busy day's aggregate is four items on four keys; readers add them up.
        Key: tenantKey(tenant, `${sk}#${shardOf(eventId)}`),
        UpdateExpression: `SET entity = :entity, ${dimensionNames.map((_, i) => `#d${i} = :d${i}`).join(', ')} ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
          ...Object.fromEntries(dimensionNames.map((name, i) => [`#d${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':entity': 'analytics_aggregate',
          ...Object.fromEntries(names.map((name, i) => [`:c${i}`, counters[name]])),
          ...Object.fromEntries(dimensionNames.map((name, i) => [`:d${i}`, dimensions[name]])),
        },
      },
    },
  ]);
  if (outcome.committed) return true;
  if (outcome.failedConditions.includes(0)) return false;
  throw new Error(`Could not add analytics for ${eventId}: the transaction conflicted`);
}

/** One aggregate item: its dimensions (strings) and its counters (numbers, only ever ADDed). */
export interface Aggregate {
  dimensions: Record<string, string>;
  counters: Counters;
}

/**
 * Every aggregate of one kind over the days from..to (inclusive, yyyy-mm-dd), for kinds whose sort
 * key is `ANALYTICS#<kind>#<day>#…`: one Query, paged by 1 MB. `dimensions` names the string
 * attributes to lift out; every other attribute but the keys is a counter.
 */
export async function aggregatesBetween(tenant: Tenant, kind: string, from: string, to: string, dimensions: readonly string[]): Promise<Aggregate[]> {
  const prefix = `ANALYTICS#${kind}#`;
  const items = await queryTenant(tenant, { prefix, lower: `${prefix}${from}`, upper: `${prefix}${to}#~` });
  const merged = new Map<string, Aggregate>();
  for (const { pk: _pk, sk: _sk, entity: _entity, ...attributes } of items) {
    const lifted = Object.fromEntries(dimensions.map((name) => [name, String(attributes[name])]));
    const aggregate = merged.get(JSON.stringify(lifted)) ?? { dimensions: lifted, counters: {} };
    for (const [name, value] of Object.entries(attributes)) {
      if (!dimensions.includes(name) && typeof value === 'number') aggregate.counters[name] = (aggregate.counters[name] ?? 0) + value;
    }
    merged.set(JSON.stringify(lifted), aggregate);
  }
  return [...merged.values()];
}

/** Every recovery aggregate of the days from..to (inclusive, yyyy-mm-dd). */
export async function recoveryAggregates(tenant: Tenant, from: string, to: string): Promise<RecoveryAggregate[]> {
  const aggregates = await aggregatesBetween(tenant, 'RECOVERY', from, to, ['day', 'psp', 'currency']);
  return aggregates.map(({ dimensions, counters }) => ({ day: dimensions.day!, psp: dimensions.psp!, currency: dimensions.currency!, counters }));
}

/**
 * Campaign aggregates: one item per tenant, day (UTC, of the enrollment: a cohort) and campaign, sk
 * `ANALYTICS#CAMPAIGN#<yyyy-mm-dd>#<campaign_id>`, with the same marker + ADD discipline (marker
 * `ANALYTICS_APPLIED#CAMPAIGN#<event id>`).
 */
export const campaignAggregateSk = (day: string, campaignId: string): string => `ANALYTICS#CAMPAIGN#${day}#${campaignId}`;

export interface CampaignAggregate {
  day: string;
  campaign_id: string;
  counters: Counters;
}

/** Every campaign aggregate of the days from..to (inclusive, yyyy-mm-dd). */
export async function campaignAggregates(tenant: Tenant, from: string, to: string): Promise<CampaignAggregate[]> {
  const aggregates = await aggregatesBetween(tenant, 'CAMPAIGN', from, to, ['day', 'campaign_id']);
  return aggregates.map(({ dimensions, counters }) => ({ day: dimensions.day!, campaign_id: dimensions.campaign_id!, counters }));
}
