import { createHash } from 'node:crypto';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { batchWriteAll, type Item, type Key } from './dynamo.ts';
import { epochSeconds, tenantKey } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * Charges a processor reported paid that had not failed here. Processors do not deliver events in
 * order, so a success can arrive before the failure it settles: it leaves a marker per charge id for
 * a week, and that failure, when it comes, is recorded as already recovered (ingestion.ts).
 */
const SETTLED_PREFIX = 'SETTLED#';
const MARKER_SECONDS = 7 * 24 * 60 * 60;

/**
 * Keyed by a hash of the charge id: a marker has no customer to be erased with, and some ids name
 * the person or their subscription (Braintree's `sub:<subscription>:<period>`, a generic sender's own).
 */
const settledSk = (psp: string, reference: string): string => `${SETTLED_PREFIX}${psp}#${createHash('sha256').update(reference).digest('hex')}`;

export function settledChargeKeys(tenant: Tenant, psp: string, references: readonly string[]): Key[] {
  return [...new Set(references)].map((reference) => (tenantKey(tenant, settledSk(psp, reference))));
}

/** When the latest live marker among the found items settled its charge (the success event's time), if any. Expired ones wait only for TTL's sweep. */
export function settledAt(found: readonly Item[], now: Date): string | undefined {
  const times = found
    .filter((item) => (item.sk as string).startsWith(SETTLED_PREFIX) && Number(item.expires_at) > epochSeconds(now))
    .map((item) => item.settled_at as string);
  return times.length === 0 ? undefined : times.reduce((latest, at) => (Date.parse(at) > Date.parse(latest) ? at : latest));
}

/**
 * Conditions for a failure's transaction on the markers its lookup read: none appeared meanwhile
 * that settles it (a success no older than the failure, still live). A marker of an earlier success
 * leaves a newer failure free to be recorded.
 */
export function unsettledChargeChecks(markers: readonly Key[], failedAt: string, now: Date): TransactItem[] {
  return markers.map((Key) => ({
    ConditionCheck: {
      TableName: tableName,
      Key,
      ConditionExpression: 'attribute_not_exists(pk) OR settled_at < :failed_at OR expires_at <= :now',
      ExpressionAttributeValues: { ':failed_at': new Date(failedAt).toISOString(), ':now': epochSeconds(now) },
    },
  }));
}

export async function recordSettledCharges(tenant: Tenant, psp: string, references: readonly string[], settledAtTime: string, now: Date): Promise<void> {
  const expiresAt = epochSeconds(now) + MARKER_SECONDS;
  await batchWriteAll(
    db,
    tableName,
    settledChargeKeys(tenant, psp, references).map((key) => ({
      PutRequest: { Item: { ...key, entity: 'settled_charge', settled_at: new Date(settledAtTime).toISOString(), expires_at: expiresAt } },
    })),
  );
}
