import { createHash } from 'node:crypto';
import { deleteSubscriberSessions } from '../../store/cancel-sessions.ts';
import { findCustomer, getCustomer, deleteCustomerWrites } from '../../store/customers.ts';
import { eraseSearchIndexWrites } from '../../store/customer-search.ts';
import { completeErasedCustomerWrite, erasedChargeWrites, recordErasedCustomer } from '../../store/erased-references.ts';
import { countAnonymizedWrite, completeErasureWrite, deleteOwnedItem, findErasure, markErasureStep, ownedItems, startErasure } from '../../store/erasures.ts';
import { enrollmentFromItem, eraseEnrollmentWrites } from '../../store/enrollments.ts';
import { anonymizeEvent, recordEventWrite } from '../../store/events.ts';
import { deleteIdempotencyRecordsContaining } from '../../store/idempotency.ts';
import { deletePaymentReferenceWrites, findPayment, paymentChangeWrites } from '../../store/payments.ts';
import { transact } from '../../store/transactions.ts';
import { paymentResource } from '../../representations/payment.ts';
import type { Customer } from '../../model/customer.ts';
import type { ErasureStep } from '../../model/erasure.ts';
import { isOpen, type Payment } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';
import { newEvent } from '../../model/events.ts';
import { BACKGROUND_WRITE, LOST, writeOptimistically, type ContentionPolicy } from '../contention.ts';

/**
 * DELETE /v1/customers/{id} (§4.2, GDPR erasure). Personal data is deleted; payments and the events
 * about them are kept for financial reporting with every customer identifier removed. Each step is
 * idempotent and the customer item goes last, so an erasure that stopped halfway is still visible and
 * running it again finishes it (docs/decisions.md, "Erasure").
 */
export interface ErasureResult {
  id: string;
  deleted: true;
  /** Payment records kept in anonymised form. */
  anonymized_records: number;
}

/** Fields that identify the customer wherever they appear in a stored document. */
const PERSONAL_FIELDS = new Set(['customer_id', 'email', 'name', 'phone', 'psp_customer_id', 'subscription_id', 'psp_subscription_id']);
/** Substrings shorter than this are only removed as whole values (a two-letter name must not blank every word containing it). */
const MIN_SUBSTRING = 4;

const present = (value: string | null | undefined): value is string => typeof value === 'string' && value.length > 0;

/** Every value that identifies the person: ours (customer and subscription ids) and the processor's, name and email. */
export function personalValues(customer: Customer): string[] {
  return [
    customer.id,
    customer.email,
    customer.name,
    customer.phone,
    customer.psp_customer_id,
    ...customer.subscriptions.flatMap((subscription) => [subscription.id, subscription.psp_subscription_id]),
  ].filter(present);
}

/** A copy of a stored document with the customer's fields and values removed, any depth. */
export function scrub(value: unknown, personal: readonly string[]): unknown {
  if (typeof value === 'string') {
    const identifies = personal.some((known) => value === known || (known.length >= MIN_SUBSTRING && value.includes(known)));
    return identifies ? null : value;
  }
  if (Array.isArray(value)) return value.map((element) => scrub(element, personal));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => [key, PERSONAL_FIELDS.has(key) ? null : scrub(field, personal)]),
    );
  }
  return value;
}

/**
 * The payment as kept for reporting: amounts, dates, codes, retries and the processor's charge ids
 * stay; the customer and subscription links go, and so does any processor reference that names the
 * person (a Braintree `sub:<subscription>:<period>` reference names their subscription). Recovery
 * ends with the customer: a payment still open becomes `terminal` (`ended`), so nothing charges the
 * card of a person who asked to be forgotten, as nothing messages them (their enrollments are deleted).
 * One with an attempt claimed (`retrying`) ends when the attempt runs: not made if it had not reached
 * the processor yet, else with its answer (retry-execution.ts, applyOutcome).
 */
export function anonymizePayment(payment: Payment, personal: readonly string[], now: Date): { payment: Payment; droppedReferences: string[]; ended: boolean } {
  const identifying = [...personal, payment.psp_subscription_id, payment.subscription_id, payment.customer_id].filter(present);
  const names = (reference: string) => identifying.some((value) => reference.includes(value));
  const droppedReferences = payment.psp_references.filter(names);
  const chargeId = names(payment.psp_payment_id) ? `erased_${createHash('sha256').update(payment.psp_payment_id).digest('hex').slice(0, 32)}` : payment.psp_payment_id;
  const ended = isOpen(payment.status) && payment.status !== 'retrying';
  return {
    payment: {
      ...payment,
      ...(ended ? { status: 'terminal', next_retry_at: null } : {}),
      customer_id: null,
      subscription_id: null,
      psp_subscription_id: null,
      // The card it failed on is the person's, as the enrollments' card is.
      ...(payment.failed_card === undefined ? {} : { failed_card: null }),
      psp_payment_id: chargeId,
      psp_references: payment.psp_references.filter((reference) => !names(reference)),
      updated_at: now.toISOString(),
      version: payment.version + 1,
    },
    droppedReferences,
    ended,
  };
}

export async function eraseCustomer(tenant: Tenant, customerId: string, now: Date): Promise<ErasureResult> {
  const erasing: ContentionPolicy = {
    write: 'erasure',
    attempts: 20,
    backoff: BACKGROUND_WRITE,
    exhausted: (attempts) => new Error(`Could not finish erasing customer ${customerId} after ${attempts} rounds`),
  };
  return writeOptimistically(erasing, async () => {
    const customer = await findCustomer(tenant, customerId);
    if (!customer) return finishedErasure(tenant, customerId, now);
    const record = await startErasure(tenant, customerId, now);
    const erasedAt = record.started_at;
    const personal = personalValues(customer);
    // Each step done is noted on the record: a DELETE sent again after a failure part-way (a throttled
    // table) goes on from the next one, so every try takes the erasure further instead of starting over.
    const done = new Set(record.steps_done ?? []);
    const step = async (name: ErasureStep, work: () => Promise<unknown>) => {
      if (done.has(name)) return;
      await work();
      await markErasureStep(tenant, customerId, name);
    };
    // First, before anything is erased: from here on an event about the person that happened before
    // the erasure began is recognised (ingestion.ts), however far the erasure has got.
    await step('tombstone', () => recordErasedCustomer(tenant, customer.psp, customer.psp_customer_id, customerId, erasedAt));
    await step('idempotency_records', () => deleteIdempotencyRecordsContaining(tenant, personal));
    // The widget names the subscriber by the processor's customer id or ours.
    await step('subscriber_sessions', () => deleteSubscriberSessions(tenant, [customer.psp_customer_id, customerId]));
    // Each item leaves the customer's partition as it is handled: a resent erasure finds only those left.
    await anonymizeOwnedItems(tenant, customerId, personal, erasedAt, now);
    const notice = newEvent(tenant, 'customer.deleted', { id: customerId, deleted: true }, now);
    const outcome = await transact([
      ...deleteCustomerWrites(tenant, customer),
      ...(await eraseSearchIndexWrites(tenant, customerId)),
      completeErasureWrite(tenant, customerId, now),
      completeErasedCustomerWrite(tenant, customer.psp, customer.psp_customer_id, customerId),
      recordEventWrite(tenant, notice),
    ]);
    // The customer changed meanwhile (a new failure arrived for them): erase what it brought, then try again.
    return outcome.committed ? finishedErasure(tenant, customerId, now) : LOST;
  });
}

/** After the customer item is gone: sweep up any straggler (index lag) and answer from the record. */
async function finishedErasure(tenant: Tenant, customerId: string, now: Date): Promise<ErasureResult> {
  const record = await findErasure(tenant, customerId);
  // Never erased here: the usual 404 (or 401 when the id belongs to the other environment, §5 rule 1).
  if (!record) {
    await getCustomer(tenant, customerId);
    throw new Error(`Customer ${customerId} reappeared during erasure`);
  }
  if (record.state !== 'completed') throw new Error(`Erasure of ${customerId} is open but the customer is gone`);
  await anonymizeOwnedItems(tenant, customerId, [customerId], record.started_at, now);
  const final = (await findErasure(tenant, customerId))!;
  return { id: customerId, deleted: true, anonymized_records: final.anonymized_records };
}

interface ErasureContext {
  customerId: string;
  personal: readonly string[];
  /** When the erasure began: events that happened before it are erased too. */
  erasedAt: string;
  now: Date;
}

/**
 * How erasure treats each kind of item linked to the customer (customerOwnerPartition): records kept
 * for reporting are anonymised; an entity not listed here is the customer's own data and is deleted.
 * A module whose customer-linked items need more than deletion (counters to adjust) adds its entity.
 * Handlers answer whether they changed the item.
 */
const OWNED_ITEMS: Record<string, (tenant: Tenant, item: Record<string, unknown>, context: ErasureContext) => Promise<boolean>> = {
  payment: (tenant, item, context) => anonymizeOwnedPayment(tenant, item.id as string, context),
  event: async (tenant, item, context) => {
    await anonymizeEvent(tenant, item.id as string, scrub(item.data, context.personal) as Record<string, unknown>);
    return true;
  },
  enrollment: async (tenant, item) => (await transact(eraseEnrollmentWrites(tenant, enrollmentFromItem(item)))).committed,
};

/**
 * Handles every item still linked to the customer; each leaves the customer's partition as it is
 * handled, so an empty partition is done. Payments go one at a time (each also counts itself on the
 * erasure record, one item); everything else in parallel.
 */
async function anonymizeOwnedItems(tenant: Tenant, customerId: string, personal: readonly string[], erasedAt: string, now: Date): Promise<void> {
  const context: ErasureContext = { customerId, personal, erasedAt, now };
  const handle = (item: Record<string, unknown>): Promise<boolean> => {
    const handler = OWNED_ITEMS[item.entity as string];
    return handler ? handler(tenant, item, context) : deleteOwnedItem(item as { pk: string; sk: string }).then(() => true);
  };
  for (let idle = 0; idle < 25; ) {
    const items = await ownedItems(tenant, customerId);
    if (items.length === 0) return;
    let changed = 0;
    for (const item of items.filter((candidate) => candidate.entity === 'payment')) changed += Number(await handle(item));
    const others = await Promise.all(items.filter((candidate) => candidate.entity !== 'payment').map(handle));
    changed += others.filter(Boolean).length;
    // Entries already handled can linger in an index for a moment (or a concurrent change won): wait that moment.
    idle = changed === 0 ? idle + 1 : 0;
    if (changed === 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Items of customer ${customerId} keep reappearing during erasure`);
}

async function anonymizeOwnedPayment(tenant: Tenant, paymentId: string, { customerId, personal, erasedAt, now }: ErasureContext): Promise<boolean> {
  const payment = await findPayment(tenant, paymentId);
  if (!payment || payment.customer_id !== customerId) return false;
  const { payment: anonymized, droppedReferences, ended } = anonymizePayment(payment, personal, now);
  const outcome = await transact([
    ...paymentChangeWrites(tenant, payment, anonymized),
    ...deletePaymentReferenceWrites(tenant, payment.psp, droppedReferences),
    // Every charge id it had, the hashed and dropped ones too: duplicate detection no longer finds those.
    ...erasedChargeWrites(tenant, payment.psp, [payment.psp_payment_id, ...payment.psp_references], customerId, erasedAt),
    countAnonymizedWrite(tenant, customerId),
    // Announced like any terminal outcome (analytics, the merchant's webhooks), from the anonymised payment.
    ...(ended ? [recordEventWrite(tenant, newEvent(tenant, 'payment.terminal', paymentResource(anonymized), now))] : []),
  ]);
  // A concurrent change won: the payment is still linked, and the next round takes it again.
  return outcome.committed;
}
