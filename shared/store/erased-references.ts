import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import type { Item, Key } from './dynamo.ts';
import { tenantKey, tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * What an erasure leaves behind so that it stays final (docs/privacy.md): per tenant and processor, a
 * hash of the erased customer's processor customer id and of each charge id of their payments, with
 * the time the erasure began. Processor events are matched on exactly these ids (the customer
 * reference, duplicate detection), so an event about the person that happened before that time is
 * recognised and acknowledged without storing anything, whatever erasure did to the payments' ids.
 *
 * No personal data: the hash input is salted with the tenant, the id itself is nowhere, and the only
 * other value is our own customer id (a random id the erasure record keeps too). Subscription ids are
 * not kept: events about a subscription are found through their customer, and a generic sender's
 * subscription ids need not be unique across customers, so a tombstone of one could swallow another
 * person's events.
 */
const ERASED_PREFIX = 'ERASED#';
type ErasedKind = 'customer' | 'charge';

const erasedSk = (tenant: Tenant, psp: string, kind: ErasedKind, id: string): string =>
  `${ERASED_PREFIX}${psp}#${kind}#${createHash('sha256').update(`${tenantPk(tenant)}\n${psp}\n${kind}\n${id}`).digest('hex')}`;

const erasedKey = (tenant: Tenant, psp: string, kind: ErasedKind, id: string): Key => (tenantKey(tenant, erasedSk(tenant, psp, kind, id)));

/** A processor event as the erasure check sees it: the tombstones that would name it, and when it happened. */
export interface ErasureCheck {
  keys: Key[];
  occurredAt: string;
}

/** The check of an event about this processor customer and these charge ids (none for events about the customer alone). */
export function erasureCheck(tenant: Tenant, psp: string, pspCustomerId: string, charges: readonly string[], occurredAt: string): ErasureCheck {
  const chargeKeys = [...new Set(charges)].map((charge) => erasedKey(tenant, psp, 'charge', charge));
  return { keys: [erasedKey(tenant, psp, 'customer', pspCustomerId), ...chargeKeys], occurredAt: new Date(occurredAt).toISOString() };
}

/** What a batch read that includes the check's keys must project. */
export const ERASED_REFERENCE_ATTRIBUTES = 'erased_at, erasure_state';

/** What the tombstones found for an event say about it. */
export type ErasureVerdict =
  /** Nothing erased names it, or it happened after the erasure: ingested as usual (a new relationship). */
  | { kind: 'none' }
  /** It happened before an erasure of what it names: acknowledged, nothing stored. */
  | { kind: 'erased' }
  /** It happened after an erasure began that has not finished: its customer is still being deleted. */
  | { kind: 'erasing' };

/** The verdict of the tombstones among `found` (items of a batch read that may hold others too). */
export function erasureVerdict(found: readonly Item[], check: ErasureCheck): ErasureVerdict {
  const tombstones = found.filter((item) => (item.sk as string).startsWith(ERASED_PREFIX));
  if (tombstones.some((tombstone) => check.occurredAt < (tombstone.erased_at as string))) return { kind: 'erased' };
  return tombstones.some((tombstone) => tombstone.erasure_state === 'in_progress') ? { kind: 'erasing' } : { kind: 'none' };
}

/**
 * Conditions for an event's writes on the tombstones its read found (or not): none appeared meanwhile
 * that erases the event, and no erasure of its customer is under way. An erasure that begins between
 * an event's read and its transaction fails the transaction, and the event reads again.
 */
export function notErasedChecks(check: ErasureCheck): TransactItem[] {
  return check.keys.map((Key) => ({
    ConditionCheck: {
      TableName: tableName,
      Key,
      ConditionExpression: 'attribute_not_exists(pk) OR (erased_at <= :at AND (attribute_not_exists(erasure_state) OR erasure_state = :completed))',
      ExpressionAttributeValues: { ':at': check.occurredAt, ':completed': 'completed' },
    },
  }));
}

/**
 * The customer's tombstone, written before the erasure touches anything, marked as under way. A
 * later erasure of a new customer with the same processor id replaces it with its own time.
 */
export async function recordErasedCustomer(tenant: Tenant, psp: string, pspCustomerId: string, customerId: string, erasedAt: string): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...erasedKey(tenant, psp, 'customer', pspCustomerId), entity: 'erased_reference', erased_at: erasedAt, customer_id: customerId, erasure_state: 'in_progress' },
    }),
  );
}

/** Marks the customer's tombstone finished, in the transaction that deletes the customer. */
export function completeErasedCustomerWrite(tenant: Tenant, psp: string, pspCustomerId: string, customerId: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: erasedKey(tenant, psp, 'customer', pspCustomerId),
      UpdateExpression: 'SET erasure_state = :completed',
      ConditionExpression: 'customer_id = :id',
      ExpressionAttributeValues: { ':completed': 'completed', ':id': customerId },
    },
  };
}

/** Tombstones for a payment's charge ids, in the transaction that anonymises the payment. */
export function erasedChargeWrites(tenant: Tenant, psp: string, charges: readonly string[], customerId: string, erasedAt: string): TransactItem[] {
  return [...new Set(charges)].map((charge) => ({
    Put: { TableName: tableName, Item: { ...erasedKey(tenant, psp, 'charge', charge), entity: 'erased_reference', erased_at: erasedAt, customer_id: customerId } },
  }));
}
