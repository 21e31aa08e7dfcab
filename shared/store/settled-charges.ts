import { createHash } from 'node:crypto';
import { runtime } from '../composition.ts';
import type { Tenant } from '../domain/tenant.ts';
import { batchWriteAll, type Item, type Key } from './dynamo.ts';
import { epochSeconds, tenantPk } from './keys.ts';
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
  return [...new Set(references)].map((reference) => ({ pk: tenantPk(tenant), sk: settledSk(psp, reference) }));
}

/** When the latest of the found items settled its charge (the success event's time), if any of them is a marker. */
export function settledAt(found: readonly Item[]): string | undefined {
  const times = found.filter((item) => (item.sk as string).startsWith(SETTLED_PREFIX)).map((item) => item.settled_at as string);
  return times.length === 0 ? undefined : times.reduce((latest, at) => (Date.parse(at) > Date.parse(latest) ? at : latest));
}

/** Conditions for a failure's transaction: none of its charge ids has been marked settled meanwhile. */
export function unsettledChargeChecks(tenant: Tenant, psp: string, references: readonly string[]): TransactItem[] {
  return settledChargeKeys(tenant, psp, references).map((Key) => ({
    ConditionCheck: { TableName: tableName, Key, ConditionExpression: 'attribute_not_exists(pk)' },
  }));
}

export async function recordSettledCharges(tenant: Tenant, psp: string, references: readonly string[], settledAtTime: string, now: Date): Promise<void> {
  const expiresAt = epochSeconds(now) + MARKER_SECONDS;
  await batchWriteAll(
    db,
    tableName,
    settledChargeKeys(tenant, psp, references).map((key) => ({
      PutRequest: { Item: { ...key, entity: 'settled_charge', settled_at: settledAtTime, expires_at: expiresAt } },
    })),
  );
}
