import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { customerRefKey, type CustomerRef } from './customers.ts';
import { BATCH_GET_LIMIT, batchGetConsistent, type Key } from './dynamo.ts';
import { entityOf } from './items.ts';
import { ERASED_REFERENCE_ATTRIBUTES, erasureVerdict, type ErasureCheck, type ErasureVerdict } from './erased-references.ts';
import { paymentReferenceKeys, referenceMatch, type ReferenceMatch } from './payments.ts';
import { settledAt, settledChargeKeys } from './settled-charges.ts';

const { db, tableName } = runtime;

/**
 * The first read of each processor event: what it finds recorded, and the erasure tombstones that
 * name it (erased-references.ts), in one consistent batch read, so checking for an erasure costs no
 * request of its own. The transaction that follows checks the tombstones again.
 */

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
  erasure: ErasureVerdict;
}

/**
 * The customer reference, the charge references and the tombstones of a failed-payment event, so
 * ingesting a failure costs this read and its transaction (plus the customer's item when it is known).
 * The transaction's conditions still decide; this read only picks the likely path.
 */
export async function findRecordedFailure(
  tenant: Tenant,
  psp: string,
  pspCustomerId: string,
  references: readonly string[],
  check: ErasureCheck,
  now: Date,
): Promise<RecordedFailure> {
  const customerKey = customerRefKey(tenant, psp, pspCustomerId);
  const referenceKeys = paymentReferenceKeys(tenant, psp, references);
  // One batch read takes 100 keys: the markers of as many charge ids as fit beside the rest.
  const others = 1 + referenceKeys.length + check.keys.length;
  const settledKeys = settledChargeKeys(tenant, psp, references).slice(0, Math.max(0, BATCH_GET_LIMIT - others));
  const found = await batchGetConsistent(
    db,
    tableName,
    [customerKey, ...referenceKeys, ...check.keys, ...settledKeys],
    `sk, customer_id, payment_id, settled_at, expires_at, ${ERASED_REFERENCE_ATTRIBUTES}`,
  );
  const customerRef = found.find((item) => item.sk === customerKey.sk);
  const referenceSks = new Set(referenceKeys.map((key) => key.sk));
  return {
    customerId: customerRef && entityOf<CustomerRef>(customerRef).customer_id,
    payment: referenceMatch(psp, references, found.filter((item) => referenceSks.has(item.sk as string))),
    settledAt: settledAt(found, now),
    markerKeys: settledKeys,
    erasure: erasureVerdict(found, check),
  };
}

/** The payment a success's charge ids point at, if any, and what the tombstones say of the success. */
export async function findSettledPayment(
  tenant: Tenant,
  psp: string,
  references: readonly string[],
  check: ErasureCheck,
): Promise<{ payment: ReferenceMatch | undefined; erasure: ErasureVerdict }> {
  const referenceKeys = paymentReferenceKeys(tenant, psp, references);
  const found = await batchGetConsistent(db, tableName, [...referenceKeys, ...check.keys], `sk, payment_id, ${ERASED_REFERENCE_ATTRIBUTES}`);
  const referenceSks = new Set(referenceKeys.map((key) => key.sk));
  return {
    payment: referenceMatch(psp, references, found.filter((item) => referenceSks.has(item.sk as string))),
    erasure: erasureVerdict(found, check),
  };
}

/** The customer of a processor customer id, if one exists, and what the tombstones say of the event about them. */
export async function findEventCustomer(
  tenant: Tenant,
  psp: string,
  pspCustomerId: string,
  check: ErasureCheck,
): Promise<{ customerId: string | undefined; erasure: ErasureVerdict }> {
  const customerKey = customerRefKey(tenant, psp, pspCustomerId);
  const found = await batchGetConsistent(db, tableName, [customerKey, ...check.keys], `sk, customer_id, ${ERASED_REFERENCE_ATTRIBUTES}`);
  return {
    customerId: found.find((item) => item.sk === customerKey.sk)?.customer_id as string | undefined,
    erasure: erasureVerdict(found, check),
  };
}
