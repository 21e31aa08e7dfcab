import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import type { Payment } from '../domain/payments.ts';
import type { Tenant } from '../domain/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { isConditionFailure } from './dynamo.ts';
import { tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

export const paymentSk = (paymentId: string): string => `PAYMENT#${paymentId}`;
/** Every processor id naming a failed charge points at its payment, so repeated or sibling events find it. */
const paymentRefSk = (psp: string, reference: string): string => `PAYREF#${psp}#${reference}`;

function toItem(tenant: Tenant, payment: Payment) {
  return { pk: tenantPk(tenant), sk: paymentSk(payment.id), entity: 'payment', ...payment };
}

function fromItem(item: Record<string, unknown>): Payment {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _g1, gsi1sk: _g1s, gsi2pk: _g2, gsi2sk: _g2s, gsi3pk: _g3, gsi3sk: _g3s, ...payment } = item;
  return payment as unknown as Payment;
}

export async function findPayment(tenant: Tenant, paymentId: string): Promise<Payment | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: paymentSk(paymentId) }, ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
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

/** The payment any of these processor ids already points at, if one does. */
export async function findPaymentByReferences(tenant: Tenant, psp: string, references: readonly string[]): Promise<ReferenceMatch | undefined> {
  const unique = [...new Set(references)].slice(0, 100);
  if (unique.length === 0) return undefined;
  const keys = unique.map((reference) => ({ pk: tenantPk(tenant), sk: paymentRefSk(psp, reference) }));
  const { Responses } = await db.send(
    new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'sk, payment_id' } } }),
  );
  const found = Responses?.[tableName] ?? [];
  const paymentId = found[0]?.payment_id as string | undefined;
  if (paymentId === undefined) return undefined;
  const linked = new Set(found.map((item) => item.sk as string));
  return { paymentId, unlinked: unique.filter((reference) => !linked.has(paymentRefSk(psp, reference))) };
}

/** A new payment and its references; a reference that already exists means another event recorded this charge first. */
export function newPaymentWrites(tenant: Tenant, payment: Payment, references: readonly string[]): TransactItem[] {
  return [
    { Put: { TableName: tableName, Item: toItem(tenant, payment), ConditionExpression: 'attribute_not_exists(pk)' } },
    ...[...new Set(references)].map((reference) => ({
      Put: {
        TableName: tableName,
        Item: { pk: tenantPk(tenant), sk: paymentRefSk(payment.psp, reference), entity: 'payment_ref', payment_id: payment.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    })),
  ];
}

/** A state change of an existing payment, only if it is still the version that was read. */
export function savePaymentWrite(tenant: Tenant, payment: Payment, readVersion: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: toItem(tenant, payment),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': readVersion },
    },
  };
}

/** Points more processor ids at a known payment (a sibling event carried ids the first one did not). */
export async function addPaymentReferences(tenant: Tenant, psp: string, paymentId: string, references: readonly string[]): Promise<void> {
  for (const reference of new Set(references)) {
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: tenantPk(tenant), sk: paymentRefSk(psp, reference), entity: 'payment_ref', payment_id: paymentId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
