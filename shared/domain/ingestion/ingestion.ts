import { isDeepStrictEqual } from 'node:util';
import { hasEnded, toPaymentMethod, type Customer } from '../../model/customer.ts';
import { lockTimeout } from '../../model/errors.ts';
import { newEvent, type ServiceEvent, type SubscriptionNews } from '../../model/events.ts';
import { isAnonymised, isOpen, RETRY_CHANNELS, type Payment, type RecoveryChannel } from '../../model/payment.ts';
import type { ProcessorConnection } from '../../model/processor-connection.ts';
import type { ProcessorEvent } from '../../model/processor-event.ts';
import type { Tenant } from '../../model/tenant.ts';
import { completeCardSetupEvent } from '../card-updates/card-update-page.ts';
import { wellFormedText } from '../../model/well-formed-text.ts';
import type { Ports } from '../../ports/ports.ts';
import { customerListItem } from '../../representations/customer.ts';
import { paymentResource } from '../../representations/payment.ts';
import { recoveredEventData } from '../../representations/payment-events.ts';
import { findCustomer, saveCustomerWrites } from '../../store/customers.ts';
import { enrollmentsOf } from '../../store/enrollments.ts';
import { erasureCheck, notErasedChecks, type ErasureCheck, type ErasureVerdict } from '../../store/erased-references.ts';
import { recordEventWrite } from '../../store/events.ts';
import { findEventCustomer, findRecordedFailure, findSettledPayment } from '../../store/failure-lookup.ts';
import {
  findPayment,
  findPaymentByReferences,
  newPaymentWrites,
  paymentChangeWrites,
  paymentReferenceWrites,
  type ReferenceMatch,
} from '../../store/payments.ts';
import { recordSettledCharges, unsettledChargeChecks } from '../../store/settled-charges.ts';
import { transact, type TransactItem } from '../../store/transactions.ts';
import { INGESTION, LOST, writeOptimistically, type ContentionPolicy } from '../contention.ts';
import { cancelPendingRetry, routeFailure } from '../retries/recovery-routing.ts';
import { attemptBuckets, blocksFromAnswer, cardOnFile } from '../retries/network-guard.ts';
import { heedNetworkAnswer, networkHeldEvent } from '../retries/network-holds.ts';
import { recordOnCardWrite } from '../../store/card-ledgers.ts';
import {
  cancelSubscription,
  countFailure,
  countRecovery,
  countTerminal,
  newCustomer,
  newPayment,
  reclassify,
  recoverPayment,
  refreshCustomer,
  updateSubscription,
  withStatus,
} from './failure-accounting.ts';
import { lateOutcomeEvents, recategorization } from './payment-change-events.ts';

/**
 * Ingestion schedules a soft decline's first retry and cancels a pending one when the processor reports
 * the payment paid; a card saved through the card-update page is completed at the processor.
 */
export type IngestionPorts = Pick<Ports, 'scheduler' | 'cardSetup' | 'keyVault'>;

export interface IngestionResult {
  outcome: 'created' | 'duplicate' | 'updated' | 'ignored' | 'erased';
  payment_id?: string;
  customer_id?: string;
}

/**
 * Optimistic writes lose to concurrent ones now and then; a burst of events for one customer makes
 * them lose often. Past INGESTION's tries (about a second and a half of backing off) the event is
 * refused with 429 lock_timeout, which the processor redelivers.
 */
const refusedAfter = (what: string): ContentionPolicy => ({
  ...INGESTION,
  exhausted: (attempts) => lockTimeout(`Could not ${what} after ${attempts} conflicting attempts`),
});

type FailedEvent = Extract<ProcessorEvent, { kind: 'payment_failed' }>;
type SucceededEvent = Extract<ProcessorEvent, { kind: 'payment_succeeded' }>;
type CustomerEvent = Exclude<ProcessorEvent, { kind: 'ignored' | 'card_setup_completed' }>;

/**
 * A customer's writes as an event leaves them (`read`: as read; undefined when the event creates
 * them), with the event that has the search index follow a new name or email; a new customer's
 * `customer.created` does that (docs/data-model.md, "Customer search").
 */
function customerWrites(tenant: Tenant, read: Customer | undefined, written: Customer, now: Date): TransactItem[] {
  const writes = saveCustomerWrites(tenant, written, read ? read.version : null);
  if (!read || (read.name === written.name && read.email === written.email)) return writes;
  return [...writes, recordEventWrite(tenant, newEvent(tenant, 'customer.renamed', { id: written.id }, now))];
}

/** The erasure check of an event about its customer alone (no charge). */
const customerCheck = (tenant: Tenant, psp: string, event: CustomerEvent): ErasureCheck =>
  erasureCheck(tenant, psp, event.customer.pspCustomerId, [], event.occurredAt);

/**
 * An event the erasure tombstones decide (docs/privacy.md): one that happened before an erasure of
 * its customer or charge is acknowledged with nothing stored, scheduled or emitted; one that happened
 * after an erasure still under way waits until it has finished (429: the processor delivers it again)
 * and then starts a fresh record, as a new relationship.
 */
function erasedOutcome(verdict: ErasureVerdict): IngestionResult | undefined {
  if (verdict.kind === 'erased') return { outcome: 'erased' };
  if (verdict.kind === 'erasing') throw lockTimeout('The customer this event is about is being erased: send it again once the erasure has finished.');
  return undefined;
}

/** What one verified processor event changes. Every path is safe to replay and to run concurrently with itself. */
export async function ingestProcessorEvent(ports: IngestionPorts, connection: ProcessorConnection, received: ProcessorEvent, now: Date): Promise<IngestionResult> {
  const { tenant, psp } = connection;
  const event = timed(wellFormedText(received));
  switch (event.kind) {
    case 'payment_failed':
      return recordFailure(ports, tenant, psp, event, now);
    case 'payment_succeeded':
      return recordRecovery(ports, tenant, psp, event, now);
    case 'subscription_canceled':
      return cancelKnownSubscription(tenant, psp, event, now);
    case 'subscription_updated':
      // An update that ends the subscription is its cancellation (Stripe sends both; either one churns, once).
      if (hasEnded(event.subscription)) return cancelKnownSubscription(tenant, psp, event, now);
      return updateKnownCustomer(tenant, psp, event.customer.pspCustomerId, customerCheck(tenant, psp, event), now, (customer) => {
        const updated = updateSubscription(customer, event.subscription, now);
        return updated && { customer: updated };
      });
    case 'payment_method_updated':
      return updateKnownCustomer(tenant, psp, event.customer.pspCustomerId, customerCheck(tenant, psp, event), now, (customer) => {
        const refreshed = refreshCustomer(customer, event.customer, null, now, event.occurredAt, toPaymentMethod(event.paymentMethod)).customer;
        if (isDeepStrictEqual(refreshed, customer)) return undefined;
        return { customer: withStatus(refreshed, now) };
      });
    case 'card_setup_completed': {
      const completed = await completeCardSetupEvent(ports, tenant, event, now);
      if (!completed) return { outcome: 'ignored' };
      return { outcome: completed.changed ? 'updated' : 'duplicate', customer_id: completed.customerId };
    }
    case 'ignored':
      return { outcome: 'ignored' };
  }
}

async function recordFailure(ports: IngestionPorts, tenant: Tenant, psp: string, event: FailedEvent, now: Date): Promise<IngestionResult> {
  const references = [...new Set([event.payment.pspPaymentId, ...event.payment.references])];
  const check = erasureCheck(tenant, psp, event.customer.pspCustomerId, references, event.occurredAt);
  return writeOptimistically(refusedAfter(`record failed payment ${event.payment.pspPaymentId}`), async () => {
    const recorded = await findRecordedFailure(tenant, psp, event.customer.pspCustomerId, references, check, now);
    const erased = erasedOutcome(recorded.erasure);
    if (erased) return erased;
    if (recorded.payment) return (await completeDuplicate(ports, tenant, psp, event, references, check, now, recorded.payment)) ?? LOST;
    const existing = recorded.customerId === undefined ? undefined : await findCustomer(tenant, recorded.customerId);
    const refreshed = refreshCustomer(existing ?? newCustomer(psp, event.customer, now), event.customer, event.subscription, now, event.occurredAt, event.paymentMethod ? toPaymentMethod(event.paymentMethod) : undefined);
    // The card network's answer may forbid the retry the processor's code allows (docs/retry-policy.md, "Card network rules").
    const card = cardOnFile(refreshed.customer.id, refreshed.customer.payment_method);
    const reportedAt = new Date(Math.min(Date.parse(event.occurredAt), now.getTime()));
    const blocks = blocksFromAnswer(card.network, event.payment.network ?? null, card.expiry, reportedAt);
    const routed = {
      ...newPayment({ psp, charge: event.payment, customerId: refreshed.customer.id, subscription: refreshed.subscription, timeZone: refreshed.customer.timezone, now }),
      failed_card: refreshed.customer.payment_method,
    };
    const failed = heedNetworkAnswer({ payment: routed, nextAttemptAt: null, events: [] }, event.payment.network ?? null, blocks, now, refreshed.customer.timezone).payment;
    const networkHeld = failed.network_hold && routed.status === 'pending' ? failed.network_hold : undefined;
    // The processor reported this charge paid before we heard it failed: recorded as the two events in
    // order would have left it, recovered by the processor, with nothing to retry or dun.
    const settledFirst = recorded.settledAt !== undefined && Date.parse(event.occurredAt) <= Date.parse(recorded.settledAt);
    const payment = settledFirst ? recoverPayment(failed, 'processor', now) : failed;
    // Counted as an open failure that was then paid, whatever its code would have made of it.
    const counted = countFailure(refreshed.customer, settledFirst ? { ...failed, status: 'pending' } : failed, now);
    const customer = settledFirst ? countRecovery(counted, payment, now) : counted;
    const events: ServiceEvent[] = [
      ...(existing ? [] : [newEvent(tenant, 'customer.created', customerListItem(customer), now)]),
      newEvent(tenant, 'payment.failed', paymentResource(failed), now),
      ...(settledFirst ? [newEvent(tenant, 'payment.recovered', recoveredEventData(payment), now)] : []),
      ...(payment.status === 'terminal' ? [newEvent(tenant, 'payment.terminal', paymentResource(payment), now)] : []),
      // The first retry is scheduled with the failure; every later one announces itself the same way.
      ...(payment.next_retry_at === null ? [] : [newEvent(tenant, 'payment.retry_scheduled', paymentResource(payment), now)]),
      // Held back until the card changes: dunning asks the customer, as when soft retries run out.
      ...(networkHeld && payment.status === 'communication_pending' ? [newEvent(tenant, 'payment.retry_failed', paymentResource(payment), now)] : []),
      ...(networkHeld && !settledFirst ? [networkHeldEvent(tenant, payment, now)] : []),
    ];
    const paymentWrites = newPaymentWrites(tenant, payment, references);
    // A success being marked right now fails this and is read on the next round (recordRecovery looks again after marking).
    const unsettled = settledFirst ? [] : unsettledChargeChecks(recorded.markerKeys, event.occurredAt, now);
    const result = await transact([
      ...paymentWrites,
      ...unsettled,
      ...customerWrites(tenant, existing, customer, now),
      ...events.map((e) => recordEventWrite(tenant, e)),
      ...notErasedChecks(check),
      recordOnCardWrite(tenant, card.identity, card.customerId, { buckets: attemptBuckets(null, reportedAt), blocks }, now),
    ]);
    if (result.committed) {
      await routeFailure(ports, tenant, payment);
      return { outcome: 'created', payment_id: payment.id, customer_id: customer.id };
    }
    // A concurrent delivery of the same charge recorded it between the read and this transaction.
    if (result.failedConditions.some((position) => position < paymentWrites.length)) {
      return (await completeDuplicate(ports, tenant, psp, event, references, check, now)) ?? LOST;
    }
    // The customer changed (or was created) under us, or an erasure began: read again and retry.
    return LOST;
  });
}

/**
 * The charge is already recorded (a replay, or a sibling event for the same charge). Link any new
 * processor ids, take what the first event lacked (a decline code, the subscription), and finish the
 * hand-off in case the first delivery stopped before it. `found` is the match the caller just read.
 * Undefined when an erasure began meanwhile: the caller reads again, tombstones included.
 */
async function completeDuplicate(
  ports: IngestionPorts,
  tenant: Tenant,
  psp: string,
  event: FailedEvent,
  references: string[],
  check: ErasureCheck,
  now: Date,
  found?: ReferenceMatch,
): Promise<IngestionResult | undefined> {
  return writeOptimistically(refusedAfter(`update payment for ${event.payment.pspPaymentId}`), async (attempt) => {
    const match = attempt === 0 && found ? found : await findPaymentByReferences(tenant, psp, references);
    const payment = match === undefined ? undefined : await findPayment(tenant, match.paymentId);
    if (!match || !payment) throw new Error(`Payment reference for ${event.payment.pspPaymentId} exists without its payment`);
    // The customer was erased: a late or replayed event must not link anything back to the payment.
    if (isAnonymised(payment)) return { outcome: 'duplicate', payment_id: payment.id };
    const linking = paymentReferenceWrites(tenant, psp, payment.id, match.unlinked);
    const writes: TransactItem[] = [];
    const customer = payment.customer_id === null ? undefined : await findCustomer(tenant, payment.customer_id);
    const timeZone = event.customer.timezone ?? customer?.timezone ?? null;
    let enriched = (event.payment.declineCode === null ? undefined : reclassify(payment, event.payment.declineCode, timeZone, now)) ?? payment;
    const newReferences = match.unlinked.filter((reference) => !payment.psp_references.includes(reference));
    if (newReferences.length > 0) {
      enriched = { ...enriched, psp_references: [...payment.psp_references, ...newReferences], version: payment.version + 1 };
    }
    if (customer) {
      const refreshed = refreshCustomer(customer, event.customer, event.subscription, now, event.occurredAt, event.paymentMethod ? toPaymentMethod(event.paymentMethod) : undefined);
      // A terminal code arriving late closes the payment, so it leaves the customer's open count.
      if (isOpen(payment.status) && enriched.status === 'terminal') refreshed.customer = countTerminal(refreshed.customer);
      if (!isDeepStrictEqual(refreshed.customer, customer)) writes.push(...customerWrites(tenant, customer, withStatus(refreshed.customer, now), now));
      if (payment.subscription_id === null && refreshed.subscription) {
        enriched = {
          ...enriched,
          subscription_id: refreshed.subscription.id,
          psp_subscription_id: refreshed.subscription.psp_subscription_id,
          updated_at: now.toISOString(),
          version: payment.version + 1,
        };
      }
    }
    if (enriched === payment && writes.length === 0 && linking.length === 0) {
      await routeFailure(ports, tenant, payment);
      return { outcome: 'duplicate', payment_id: payment.id, customer_id: payment.customer_id ?? undefined };
    }
    const changed =
      enriched === payment
        ? []
        : [
            ...paymentChangeWrites(tenant, payment, enriched),
            ...[...recategorization(tenant, payment, enriched, now), ...lateOutcomeEvents(tenant, payment, enriched, now)].map((change) => recordEventWrite(tenant, change)),
          ];
    const checked = [...changed, ...writes, ...linking];
    const result = await transact([...checked, ...notErasedChecks(check)]);
    if (result.committed) {
      await routeFailure(ports, tenant, enriched);
      return { outcome: 'updated', payment_id: payment.id, customer_id: payment.customer_id ?? undefined };
    }
    return result.failedConditions.some((position) => position >= checked.length) ? undefined : LOST;
  });
}

/**
 * Who gets the credit when the processor reports a payment paid (see decisions.md): a retry of ours
 * in flight, else a campaign that messaged the customer about this failure, else the processor.
 */
async function channelOf(tenant: Tenant, payment: Payment): Promise<RecoveryChannel> {
  if (payment.status === 'retrying') return RETRY_CHANNELS[payment.retry_trigger ?? 'automatic'];
  if (payment.customer_id === null) return 'processor';
  const enrollments = await enrollmentsOf(tenant, payment.customer_id, payment.id);
  return enrollments.some((enrollment) => enrollment.messages_sent > 0) ? 'dunning_campaign' : 'processor';
}

/**
 * The customer's details and the subscription a success reports, as the processor now has them: a
 * paid renewal moves `current_period_end` on, which pre-dunning reads (docs/decisions.md, "Calendar triggers").
 */
function withReportedSubscription(customer: Customer, event: SucceededEvent, now: Date): Customer {
  return refreshCustomer(customer, event.customer, event.subscription, now, event.occurredAt).customer;
}

async function recordRecovery(ports: IngestionPorts, tenant: Tenant, psp: string, event: SucceededEvent, now: Date): Promise<IngestionResult> {
  const check = erasureCheck(tenant, psp, event.customer.pspCustomerId, event.references, event.occurredAt);
  return writeOptimistically(refusedAfter('record the recovery'), async () => {
    const settled = await findSettledPayment(tenant, psp, event.references, check);
    const erased = erasedOutcome(settled.erasure);
    if (erased) return erased;
    const match = settled.payment;
    const payment = match === undefined ? undefined : await findPayment(tenant, match.paymentId);
    // A terminal payment paid after all (a new card on the invoice, an uncollectible invoice settled) comes back too.
    const paidAfterAll = payment?.status === 'terminal';
    if (!payment || !(isOpen(payment.status) || paidAfterAll)) {
      // A success for a charge that never failed here (a renewal paid as it should), or a repeat of one
      // already counted: nothing to recover, but a known customer's subscription may have moved on.
      // A charge not seen at all may yet fail here, late (events come out of order): it is marked settled.
      if (!match) {
        await recordSettledCharges(tenant, psp, event.references, event.occurredAt, now);
        // A failure recorded between the lookup and the marker missed it: recover that one now.
        if (await findPaymentByReferences(tenant, psp, event.references)) return LOST;
      }
      const refreshed = await updateKnownCustomer(tenant, psp, event.customer.pspCustomerId, check, now, (customer) => {
        const next = withReportedSubscription(customer, event, now);
        return isDeepStrictEqual(next, customer) ? undefined : { customer: withStatus(next, now) };
      });
      if (refreshed.outcome === 'erased') return refreshed;
      if (refreshed.outcome === 'updated') return { ...refreshed, payment_id: payment?.id };
      return payment ? { outcome: 'duplicate', payment_id: payment.id } : { outcome: 'ignored' };
    }
    const customer = payment.customer_id === null ? undefined : await findCustomer(tenant, payment.customer_id);
    const recovered = recoverPayment(payment, await channelOf(tenant, payment), now);
    const writes = [
      ...paymentChangeWrites(tenant, payment, recovered),
      ...(paidAfterAll ? [recordEventWrite(tenant, newEvent(tenant, 'payment.terminal_reversed', paymentResource(recovered), now))] : []),
      recordEventWrite(tenant, newEvent(tenant, 'payment.recovered', recoveredEventData(recovered), now)),
    ];
    const counted = customer && countRecovery(withReportedSubscription(customer, event, now), recovered, now, paidAfterAll ? 'terminal' : 'open');
    if (customer && counted) writes.push(...customerWrites(tenant, customer, counted, now));
    const result = await transact([...writes, ...notErasedChecks(check)]);
    if (result.committed) {
      await cancelPendingRetry(ports, payment);
      return { outcome: 'updated', payment_id: payment.id, customer_id: payment.customer_id ?? undefined };
    }
    return LOST;
  });
}

/** The event with its subscription snapshot marked with the event's time: an older description never replaces a newer one. */
function timed(event: ProcessorEvent): ProcessorEvent {
  if (!('subscription' in event) || !event.subscription) return event;
  return { ...event, subscription: { ...event.subscription, describedAt: event.occurredAt } } as ProcessorEvent;
}

type SubscriptionEvent = Extract<ProcessorEvent, { kind: 'subscription_canceled' | 'subscription_updated' }>;

function cancelKnownSubscription(tenant: Tenant, psp: string, event: SubscriptionEvent, now: Date): Promise<IngestionResult> {
  return updateKnownCustomer(tenant, psp, event.customer.pspCustomerId, customerCheck(tenant, psp, event), now, (customer) => {
    const current = customer.subscriptions.find((s) => s.psp_subscription_id === event.subscription.pspSubscriptionId);
    if (current && hasEnded(current)) return undefined;
    const canceled = cancelSubscription(customer, event.subscription, now);
    const subscription = canceled.subscriptions.find((s) => s.psp_subscription_id === event.subscription.pspSubscriptionId)!;
    // The shape a cancel flow's churn has (cancel-completion.ts): which subscription, and where the news came from.
    const about: SubscriptionNews = { subscription: { id: subscription.id, psp_subscription_id: subscription.psp_subscription_id }, source: 'processor' };
    return { customer: canceled, event: { type: 'customer.subscription_canceled', data: about } };
  });
}

async function updateKnownCustomer(
  tenant: Tenant,
  psp: string,
  pspCustomerId: string,
  check: ErasureCheck,
  now: Date,
  /** Returns undefined when the event changes nothing (a replay), so nothing is written or emitted twice. */
  change: (customer: Customer) => { customer: Customer; event?: { type: 'customer.subscription_canceled'; data: SubscriptionNews } } | undefined,
): Promise<IngestionResult> {
  return writeOptimistically(refusedAfter(`update customer ${pspCustomerId}`), async () => {
    const known = await findEventCustomer(tenant, psp, pspCustomerId, check);
    const erased = erasedOutcome(known.erasure);
    if (erased) return erased;
    const customer = known.customerId === undefined ? undefined : await findCustomer(tenant, known.customerId);
    // Customers are created by their first failure (§6); events about others are not ours to track.
    if (!customer) return { outcome: 'ignored' };
    const next = change(customer);
    if (!next) return { outcome: 'duplicate', customer_id: customer.id };
    const writes = customerWrites(tenant, customer, next.customer, now);
    if (next.event) writes.push(recordEventWrite(tenant, newEvent(tenant, next.event.type, { ...customerListItem(next.customer), ...next.event.data }, now)));
    writes.push(...notErasedChecks(check));
    if (!(await transact(writes)).committed) return LOST;
    return { outcome: 'updated', customer_id: customer.id };
  });
}
