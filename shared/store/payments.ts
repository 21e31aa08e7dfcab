import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Payment } from '../model/payment.ts';
import type { Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { batchGetConsistent, queryAll, type Item, type Key } from './dynamo.ts';
import { customerOwnerPartition, tenantKey, tenantPk } from './keys.ts';
import { counterWrites, withPairs } from './list-counters.ts';
import { amountKey } from './list-query.ts';
import { entityOf, storedItem } from './items.ts';
import { amountOrder, rankWrites, type Ranked } from './rank-counters.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

export const PAYMENT_SK_PREFIX = 'PAYMENT#';
export const paymentSk = (paymentId: string): string => `${PAYMENT_SK_PREFIX}${paymentId}`;
/** Every processor id naming a failed charge points at its payment, so repeated or sibling events find it. */
const paymentRefSk = (psp: string, reference: string): string => `PAYREF#${psp}#${reference}`;

interface PaymentRef {
  payment_id: string;
}

const paymentRefItem = (tenant: Tenant, psp: string, reference: string, paymentId: string) =>
  storedItem<PaymentRef>(tenantKey(tenant, paymentRefSk(psp, reference)), 'payment_ref', { payment_id: paymentId });

/**
 * The index partitions a payment is listed in (docs/data-model.md, "List indexes"). Sort keys start
 * with the payment id, which orders by creation time, except the amount index's.
 *   gsi1: the customer's items        gsi2: payments by status      gsi3: by decline category
 *   gsi4: all by amount (narrow)      gsi5: by decline code (narrow)
 */
export const paymentPartition = {
  status: (tenant: Tenant, status: string) => `${tenantPk(tenant)}#PAYMENTS#status#${status}`,
  category: (tenant: Tenant, category: string) => `${tenantPk(tenant)}#PAYMENTS#category#${category}`,
  amount: (tenant: Tenant) => `${tenantPk(tenant)}#PAYMENTS#amount`,
  code: (tenant: Tenant, code: string) => `${tenantPk(tenant)}#PAYMENTS#code#${code}`,
};

/** The stored item, index attributes included; bulk loads (the list bench's seed) write exactly this. */
export function paymentItem(tenant: Tenant, payment: Payment) {
  return storedItem(tenantKey(tenant, paymentSk(payment.id)), 'payment', payment, {
    ...(payment.customer_id === null ? {} : { gsi1pk: customerOwnerPartition(tenant, payment.customer_id), gsi1sk: paymentSk(payment.id) }),
    gsi2pk: paymentPartition.status(tenant, payment.status),
    gsi2sk: payment.id,
    gsi3pk: paymentPartition.category(tenant, payment.decline_category),
    gsi3sk: payment.id,
    gsi4pk: paymentPartition.amount(tenant),
    gsi4sk: `${amountKey(payment.amount)}#${payment.id}`,
    ...(payment.decline_code === null ? {} : { gsi5pk: paymentPartition.code(tenant, payment.decline_code), gsi5sk: payment.id }),
  });
}

/** The amount order's rank counters (rank-counters.ts): deep pages sorted by amount start from their counts. */
export const PAYMENT_AMOUNT_ORDER = amountOrder('PAYMENTS#amount', 'pay');
export const amountRanked = (payment: Payment): Ranked => ({ value: amountKey(payment.amount), id: payment.id, created_at: payment.created_at });

export const paymentFromItem = (item: Item): Payment => entityOf<Payment>(item);

/** The list counters a payment counts toward (see list-counters.ts). */
export function paymentDimensions(payment: Payment): string[] {
  return withPairs('PAYMENTS', [
    'all',
    `status:${payment.status}`,
    `category:${payment.decline_category}`,
    `psp:${payment.psp}`,
    `currency:${payment.currency}`,
    ...(payment.decline_code === null ? [] : [`code:${payment.decline_code}`]),
  ]);
}

export async function findPayment(tenant: Tenant, paymentId: string): Promise<Payment | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, paymentSk(paymentId)), ConsistentRead: true }),
  );
  return Item ? paymentFromItem(Item) : undefined;
}

export async function getPayment(tenant: Tenant, paymentId: string): Promise<Payment> {
  const payment = await findPayment(tenant, paymentId);
  if (!payment) throw await missingResource(tenant, paymentSk(paymentId), 'payment', paymentId);
  return payment;
}

export interface ReferenceMatch {
  paymentId: string;
  /** The given references that do not point at the payment yet. */
  unlinked: string[];
}

/** At most this many distinct ids are looked up, so a batch read has room for one more key (see failure-lookup.ts). */
const MAX_REFERENCES = 99;
const distinctReferences = (references: readonly string[]): string[] => [...new Set(references)].slice(0, MAX_REFERENCES);

/** The reference items of these processor ids; each found one holds the `payment_id` it points at. */
export function paymentReferenceKeys(tenant: Tenant, psp: string, references: readonly string[]): Key[] {
  return distinctReferences(references).map((reference) => (tenantKey(tenant, paymentRefSk(psp, reference))));
}

/** The payment the found reference items point at, if any, and which of the references are not linked yet. */
export function referenceMatch(psp: string, references: readonly string[], found: readonly Item[]): ReferenceMatch | undefined {
  if (found[0] === undefined) return undefined;
  const paymentId = entityOf<PaymentRef>(found[0]).payment_id;
  const linked = new Set(found.map((item) => item.sk as string));
  return { paymentId, unlinked: distinctReferences(references).filter((reference) => !linked.has(paymentRefSk(psp, reference))) };
}

/** The payment any of these processor ids already points at, if one does. */
export async function findPaymentByReferences(tenant: Tenant, psp: string, references: readonly string[]): Promise<ReferenceMatch | undefined> {
  const keys = paymentReferenceKeys(tenant, psp, references);
  if (keys.length === 0) return undefined;
  return referenceMatch(psp, references, await batchGetConsistent(db, tableName, keys, 'sk, payment_id'));
}

/**
 * Every write of a payment goes through here: the payment (new: only if absent; changed: only if
 * still the version that was read) and, in the same transaction, the list counters it moves between
 * and, when its amount is new or changed, the amount order's rank counters.
 */
export function paymentChangeWrites(tenant: Tenant, before: Payment | null, after: Payment): TransactItem[] {
  const put: TransactItem = before === null
    ? { Put: { TableName: tableName, Item: paymentItem(tenant, after), ConditionExpression: 'attribute_not_exists(pk)' } }
    : {
        Put: {
          TableName: tableName,
          Item: paymentItem(tenant, after),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        },
      };
  return [
    put,
    ...counterWrites(tenant, 'PAYMENTS', after, before && paymentDimensions(before), paymentDimensions(after)),
    ...rankWrites(tenant, [{ order: PAYMENT_AMOUNT_ORDER, before: before && amountRanked(before), after: amountRanked(after) }]),
  ];
}

/** A new payment and its references; a reference that already exists means another event recorded this charge first. */
export function newPaymentWrites(tenant: Tenant, payment: Payment, references: readonly string[]): TransactItem[] {
  return [...paymentChangeWrites(tenant, null, payment), ...paymentReferenceWrites(tenant, payment.psp, payment.id, references)];
}

/**
 * Points processor ids at a payment, each only if no other event linked it first. Part of the
 * transaction that records what the event brought, so an event that loses a race (an erasure begun
 * meanwhile, say) leaves no reference behind.
 */
export function paymentReferenceWrites(tenant: Tenant, psp: string, paymentId: string, references: readonly string[]): TransactItem[] {
  return [...new Set(references)].map((reference) => ({
    Put: { TableName: tableName, Item: paymentRefItem(tenant, psp, reference, paymentId), ConditionExpression: 'attribute_not_exists(pk)' },
  }));
}

/** Drops processor references from a payment's lookups (erasure: references that name the person). */
export function deletePaymentReferenceWrites(tenant: Tenant, psp: string, references: readonly string[]): TransactItem[] {
  return [...new Set(references)].map((reference) => ({
    Delete: { TableName: tableName, Key: tenantKey(tenant, paymentRefSk(psp, reference)) },
  }));
}

/** All payments of one customer, oldest first: a customer has few, so lists of them are sorted in memory. */
export async function paymentsOfCustomer(tenant: Tenant, customerId: string): Promise<Payment[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :owner AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':owner': customerOwnerPartition(tenant, customerId), ':prefix': PAYMENT_SK_PREFIX },
  });
  return items.map(paymentFromItem);
}
