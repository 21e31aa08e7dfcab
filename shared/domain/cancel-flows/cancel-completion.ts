import { customerListItem } from '../../representations/customer.ts';
import { findFeedbackItem, recordFeedbackWrite } from '../../store/cancel-feedback.ts';
import { consumeSessionWrites } from '../../store/cancel-sessions.ts';
import { findCustomer, findCustomerIdForPsp, saveCustomerWrites } from '../../store/customers.ts';
import { recordEventWrite } from '../../store/events.ts';
import { listConnections } from '../../store/processor-connections.ts';
import { transact, type TransactItem } from '../../store/transactions.ts';
import { churnedCustomer, feedbackOf, matchSubscription, type CustomerMatch } from './cancel-feedback.ts';
import { hasEnded, type Customer } from '../../model/customer.ts';
import { tenantOf, type Tenant } from '../../model/tenant.ts';
import type { CancelCompletion } from '../../model/cancel-session-schema.ts';
import type { CancelFeedback } from '../../model/cancel-feedback.ts';
import { newEvent, type CancelFlowCustomerEventData, type CancelFlowOutcomeData, type ServiceEvent } from '../../model/events.ts';
import { ContentionExhausted, LOST, MERCHANT_WRITE, writeOptimistically, type ContentionPolicy, type Try } from '../contention.ts';

/**
 * Storing a cancel-session completion (§4.5 "On completion"), as one transaction: the session deleted
 * (and its tombstone written), the feedback record, the recovery event (CancelFlowSaved or
 * CancelFlowCompleted), and for a save customer.retained, for a churn the subscription canceled on
 * our customer with customer.subscription_canceled. The same function serves the complete request
 * and the dead-letter worker's replay; the feedback record's key (the session id) makes it store
 * once however often it runs.
 */
export type PersistOutcome =
  | 'stored'
  /** This session's feedback exists: an earlier run stored it. */
  | 'already_stored'
  /** The session is not at the step the completion was decided at (a racing advance or complete): decide again. */
  | 'session_changed'
  /** Something occupies the feedback key that is not this session's feedback, or writes kept colliding. */
  | 'conflict';

/** A customer changing under us (a webhook for them) is retried with a fresh read; past this, give up. */
const CUSTOMER_RACES: ContentionPolicy = { write: 'cancel_completion', attempts: 6, backoff: MERCHANT_WRITE };

const OUR_CUSTOMER_ID = /^cus_[0-9a-z]{26}$/;

/**
 * Our customer the widget's ids name: the merchant's processor customer id at any processor the
 * tenant has connected (what a merchant's page knows), or our own cus_ id. A subscriber we never saw
 * a failed payment for is unknown here, and the flow still completes (docs/decisions.md).
 */
export async function findCancelingCustomer(tenant: Tenant, externalCustomerId: string, externalSubscriptionId: string): Promise<CustomerMatch> {
  // Every lookup at once: the widget's request waits on them, however many processors are connected.
  const [connections, ownCustomer] = await Promise.all([
    listConnections(tenant),
    OUR_CUSTOMER_ID.test(externalCustomerId) ? findCustomer(tenant, externalCustomerId) : undefined,
  ]);
  const processorMatches = await Promise.all(connections.map((connection) => findCustomerIdForPsp(tenant, connection.psp, externalCustomerId)));
  // A processor's customer id comes first, in the order the connections are listed (almost always one
  // matches or none does); our own id is the fallback.
  let customer: Customer | undefined;
  for (const customerId of processorMatches) {
    customer = customerId === undefined ? undefined : await findCustomer(tenant, customerId);
    if (customer) break;
  }
  customer ??= ownCustomer;
  return { customer, subscription: customer ? matchSubscription(customer, externalSubscriptionId) : undefined };
}

function recoveryEventData(feedback: CancelFeedback): CancelFlowOutcomeData {
  return {
    session_id: feedback.session_id,
    cancel_flow_id: feedback.cancel_flow_id,
    outcome: feedback.outcome,
    reason: feedback.reason,
    sub_reason: feedback.sub_reason,
    free_text: feedback.free_text,
    offer: feedback.offer,
    customer_id: feedback.customer_id,
    subscription_id: feedback.subscription_id,
    external_customer_id: feedback.external_customer_id,
    external_subscription_id: feedback.external_subscription_id,
    completed_at: feedback.completed_at,
  };
}

/**
 * A customer event from a cancel flow (customer.retained, customer.subscription_canceled): the shape
 * the event has from any other source, the customer list item (`id: null` for a subscriber we do not
 * know), plus the subscription and where it came from.
 */
function cancelFlowCustomerEventData(customer: Customer | undefined, subscription: CustomerMatch['subscription'], feedback: CancelFeedback): CancelFlowCustomerEventData {
  return {
    ...(customer ? customerListItem(customer) : { id: null }),
    subscription: { id: subscription?.id ?? null, psp_subscription_id: subscription?.psp_subscription_id ?? feedback.external_subscription_id },
    source: 'cancel_flow',
    cancel_session_id: feedback.session_id,
    external_customer_id: feedback.external_customer_id,
    external_subscription_id: feedback.external_subscription_id,
  };
}

interface Plan {
  writes: TransactItem[];
  sessionIndex: number;
  feedbackIndex: number;
}

function plan(tenant: Tenant, completion: CancelCompletion, match: CustomerMatch, guard: number | null, recordedVia: CancelFeedback['recorded_via'], now: Date): Plan {
  const feedback = feedbackOf(completion, match, recordedVia, now);
  const events: ServiceEvent[] = [
    newEvent(tenant, completion.outcome === 'saved' ? 'CancelFlowSaved' : 'CancelFlowCompleted', recoveryEventData(feedback), now),
  ];
  const writes = consumeSessionWrites(completion, guard, now);
  const sessionIndex = 0;
  const feedbackIndex = writes.push(recordFeedbackWrite(tenant, feedback)) - 1;
  const { customer, subscription } = match;
  if (completion.outcome === 'saved') {
    events.push(
      newEvent(
        tenant,
        'customer.retained',
        { ...cancelFlowCustomerEventData(customer, subscription, feedback), offer: feedback.offer },
        now,
      ),
    );
  } else if (!subscription || !hasEnded(subscription)) {
    // Every churn reaches the merchant as customer.subscription_canceled (the CancelFlow events are
    // not delivered): they cancel at the processor. Our records change only for a customer and
    // subscription we know; one our records show canceled already was announced then.
    const churned = customer && subscription ? churnedCustomer(customer, subscription.id, now) : undefined;
    if (customer && churned) writes.push(...saveCustomerWrites(tenant, churned, customer.version));
    const about = churned ?? customer;
    events.push(
      newEvent(
        tenant,
        'customer.subscription_canceled',
        cancelFlowCustomerEventData(about, subscription, feedback),
        now,
      ),
    );
  }
  writes.push(...events.map((event) => recordEventWrite(tenant, event)));
  return { writes, sessionIndex, feedbackIndex };
}

/**
 * One attempt to store the completion. `guard` is the session step the completion was decided at
 * (the complete request), or null when the session's end is already decided (the replay). Database
 * faults are thrown: the caller decides between queueing (request) and retrying later (worker).
 */
export async function persistCompletion(
  completion: CancelCompletion,
  guard: number | null,
  recordedVia: CancelFeedback['recorded_via'],
  now: Date,
): Promise<PersistOutcome> {
  const tenant = tenantOf(completion.session);
  const attempt = async (): Promise<Try<PersistOutcome>> => {
    const match = await findCancelingCustomer(tenant, completion.session.customer_id, completion.session.subscription_id);
    const { writes, sessionIndex, feedbackIndex } = plan(tenant, completion, match, guard, recordedVia, now);
    const result = await transact(writes);
    if (result.committed) return 'stored';
    const failed = result.failedConditions;
    if (guard !== null && failed.includes(sessionIndex)) return 'session_changed';
    if (failed.includes(feedbackIndex)) {
      const existing = await findFeedbackItem(tenant, completion.session.session_id);
      return existing?.entity === 'cancel_feedback' && existing.session_id === completion.session.session_id ? 'already_stored' : 'conflict';
    }
    // The customer changed since it was read, or the transaction raced another: read again.
    return LOST;
  };
  try {
    return await writeOptimistically(CUSTOMER_RACES, attempt);
  } catch (error) {
    if (error instanceof ContentionExhausted) return 'conflict';
    throw error;
  }
}
