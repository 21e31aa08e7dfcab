import type { CancelFeedback, OfferApplication } from '../../model/cancel-feedback.ts';
import { acceptedOfferOf } from './cancel-sessions.ts';
import { hasEnded, type Customer, type Subscription } from '../../model/customer.ts';
import { withStatus } from '../ingestion/failure-accounting.ts';
import type { CancelCompletion } from '../../model/cancel-session-schema.ts';

/** Which of our customers and subscriptions the widget's ids name, if any. */
export interface CustomerMatch {
  customer: Customer | undefined;
  subscription: Subscription | undefined;
}

export function feedbackOf(completion: CancelCompletion, match: CustomerMatch, recordedVia: CancelFeedback['recorded_via'], now: Date): CancelFeedback {
  const { session } = completion;
  const accepted = completion.outcome === 'saved' ? acceptedOfferOf(session) : null;
  const { customer, subscription } = match;
  const at = now.toISOString();
  let application: OfferApplication | null = null;
  if (accepted) {
    application =
      customer && subscription
        ? { status: 'pending', reason: null, reference: null, updated_at: at }
        : {
            status: 'manual',
            reason: 'The subscriber is not a customer (or subscription) the service knows from processor events, so the offer cannot be applied at the processor: apply it yourself.',
            reference: null,
            updated_at: at,
          };
  }
  return {
    session_id: session.session_id,
    cancel_flow_id: session.cancel_flow_id,
    flow_version: session.flow_version,
    outcome: completion.outcome,
    reason: completion.reason,
    sub_reason: completion.sub_reason,
    free_text: completion.free_text,
    responses: session.responses,
    accepted_offer_json: session.accepted_offer_json,
    offer: accepted?.offer ?? null,
    external_customer_id: session.customer_id,
    external_subscription_id: session.subscription_id,
    customer_id: customer?.id ?? null,
    subscription_id: subscription?.id ?? null,
    psp: customer?.psp ?? null,
    psp_customer_id: customer?.psp_customer_id ?? null,
    psp_subscription_id: subscription?.psp_subscription_id ?? null,
    started_at: session.started_at,
    completed_at: completion.completed_at,
    recorded_at: at,
    recorded_via: recordedVia,
    offer_application: application,
  };
}

/**
 * A churn's change to our customer: the subscription canceled, and the customer churned when it was
 * their last one (§3.3, docs/decisions.md "Customer status"). Undefined when it has ended already,
 * so a processor webhook that got there first is not counted twice.
 */
export function churnedCustomer(customer: Customer, subscriptionId: string, now: Date): Customer | undefined {
  const current = customer.subscriptions.find((subscription) => subscription.id === subscriptionId);
  if (!current || hasEnded(current)) return undefined;
  const subscriptions = customer.subscriptions.map((subscription) =>
    subscription.id === subscriptionId ? { ...subscription, status: 'canceled' } : subscription,
  );
  return withStatus({ ...customer, subscriptions }, now);
}

/** The widget names the merchant's processor ids; our own sub_ ids are accepted too. */
export function matchSubscription(customer: Customer, externalSubscriptionId: string): Subscription | undefined {
  return customer.subscriptions.find(
    (subscription) => subscription.psp_subscription_id === externalSubscriptionId || subscription.id === externalSubscriptionId,
  );
}
