import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { customerRefKey, type CustomerRef } from './customers.ts';
import { BATCH_GET_LIMIT, batchGetConsistent, type Key } from './dynamo.ts';
import { entityOf } from './items.ts';
import { paymentReferenceKeys, referenceMatch, type ReferenceMatch } from './payments.ts';
import { settledAt, settledChargeKeys } from './settled-charges.ts';

const { db, tableName } = runtime;

/** What a failed-payment event finds already recorded. */
export interface RecordedFailure {
  /** The customer of the event's processor customer id, if one exists. */
  customerId: string | undefined;
  /** The payment one of the event's charge ids already points at: the event is a replay or a sibling. */
  payment: ReferenceMatch | undefined;
  /** When a success for one of the event's charge ids arrived first (settled-charges.ts): the time it reports. */
  settledAt: string | undefined;
  /** The settled-charge markers read, which the failure's transaction checks again. */
  markerKeys: Key[];
}

/**
 * The customer reference and the charge references of a failed-payment event in one consistent batch
 * read, so ingesting a failure costs this read and its transaction (plus the customer's item when it
 * is known). The transaction's conditions still decide; this read only picks the likely path.
 */
export async function findRecordedFailure(tenant: Tenant, psp: string, pspCustomerId: string, references: readonly string[], now: Date): Promise<RecordedFailure> {
  const customerKey = customerRefKey(tenant, psp, pspCustomerId);
  const referenceKeys = paymentReferenceKeys(tenant, psp, references);
  // One batch read takes 100 keys: the markers of as many charge ids as fit beside the references.
  const settledKeys = settledChargeKeys(tenant, psp, references).slice(0, Math.max(0, BATCH_GET_LIMIT - 1 - referenceKeys.length));
  const found = await batchGetConsistent(db, tableName, [customerKey, ...referenceKeys, ...settledKeys], 'sk, customer_id, payment_id, settled_at, expires_at');
  const customerRef = found.find((item) => item.sk === customerKey.sk);
  const referenceSks = new Set(referenceKeys.map((key) => key.sk));
  return {
    customerId: customerRef && entityOf<CustomerRef>(customerRef).customer_id,
    payment: referenceMatch(psp, references, found.filter((item) => referenceSks.has(item.sk as string))),
    settledAt: settledAt(found, now),
    markerKeys: settledKeys,
  };
}
