import { newId } from '../ids.ts';
import type { CampaignChannel, CampaignStatus } from './campaign.ts';
import type { CancelFeedback } from './cancel-feedback.ts';
import type { OfferConfig } from './cancel-flow-steps.ts';
import type { Customer, PaymentMethod } from './customer.ts';
import type { DeclineCategory, NetworkHold, Payment } from './payment.ts';
import type { Tenant } from './tenant.ts';

/**
 * The tenant's event log: every state change writes its event in the same transaction as the change
 * (a transactional outbox), so outbound webhooks and analytics can never miss or invent one. Each
 * type carries one payload type; `newEvent` accepts only that payload for its type, and a consumer
 * that switches on `event.type` reads its data typed.
 */

/** §2.4's payment object, as payment events carry it (representations/payment.ts builds it). */
export type PaymentEventData = Pick<
  Payment,
  | 'id'
  | 'customer_id'
  | 'subscription_id'
  | 'amount'
  | 'currency'
  | 'status'
  | 'decline_code'
  | 'decline_category'
  | 'decline_subcategory'
  | 'psp'
  | 'psp_payment_id'
  | 'retry_count'
  | 'max_retries'
  | 'next_retry_at'
  | 'recovered_at'
  | 'created_at'
  | 'updated_at'
>;

/** §2.3's customer list item, as customer events carry it (representations/customer.ts builds it). */
export type CustomerEventData = Pick<
  Customer,
  'id' | 'email' | 'name' | 'psp' | 'psp_customer_id' | 'status' | 'total_payments' | 'failed_payments' | 'recovered_payments' | 'created_at' | 'updated_at'
> & { total_recovered_amount: number; total_recovered_currency: string | null };

/** Which subscription a customer event is about, and where the news came from. */
export interface SubscriptionNews {
  subscription: { id: string | null; psp_subscription_id: string };
  source: 'processor' | 'cancel_flow';
}

/**
 * A customer event a cancel flow caused: the customer as any other source describes them (`id: null`
 * for a subscriber we do not know), the subscription, and the session with the ids the widget sent.
 */
export type CancelFlowCustomerEventData = (CustomerEventData | { id: null }) &
  SubscriptionNews & { cancel_session_id: string; external_customer_id: string; external_subscription_id: string };

/** CancelFlowSaved / CancelFlowCompleted: the cancel flow's recovery record (§4.5). */
export type CancelFlowOutcomeData = Pick<
  CancelFeedback,
  | 'session_id'
  | 'cancel_flow_id'
  | 'outcome'
  | 'reason'
  | 'sub_reason'
  | 'free_text'
  | 'offer'
  | 'customer_id'
  | 'subscription_id'
  | 'external_customer_id'
  | 'external_subscription_id'
  | 'completed_at'
>;

export interface CampaignStatusChanged {
  campaign_id: string;
  from: CampaignStatus;
  to: CampaignStatus;
}

/** What an enrollment's events name: its campaign, the enrollment, its customer and the failure (null for a calendar or manual one). */
interface EnrollmentEventData {
  campaign_id: string;
  enrollment_id: string;
  customer_id: string;
  payment_id: string | null;
}

/** The card-update link a funnel event is about, and the message that carried it. */
interface CardUpdateLinkEventData extends EnrollmentEventData {
  link_id: string;
  channel: CampaignChannel;
}

/** Every event type and the payload it carries. */
export interface EventPayloads {
  'payment.failed': PaymentEventData;
  /** The payment plus how it came back, which the REST object does not carry (docs/decisions.md, Analytics). */
  'payment.recovered': PaymentEventData & Pick<Payment, 'recovery_channel'>;
  'payment.terminal': PaymentEventData;
  'payment.retry_scheduled': PaymentEventData;
  'payment.retry_failed': PaymentEventData;
  /** A card network rule held back an attempt: the payment, the rule and when the card may be tried again. */
  'payment.network_held': PaymentEventData & { network_hold: NetworkHold };
  /** Internal: a later decline moved an open payment to another category; analytics moves its failure with it. */
  'payment.recategorized': Pick<Payment, 'id' | 'psp' | 'amount' | 'currency' | 'created_at' | 'decline_category'> & {
    previous_decline_category: DeclineCategory;
  };
  /** Internal: a payment counted terminal was paid after all; analytics takes it out of terminal (its recovery counts as any other). */
  'payment.terminal_reversed': PaymentEventData;
  'customer.created': CustomerEventData;
  /** Internal: a customer's name or email changed; the search index follows it (store/customer-search.ts). */
  'customer.renamed': { id: string };
  /** The erasure notice: outlives the erasure it reports, so it names the customer by id alone. */
  'customer.deleted': { id: string; deleted: true };
  /** A retry won the customer back (the list item), or a cancel flow saved them (with the offer they accepted). */
  'customer.retained': CustomerEventData | (CancelFlowCustomerEventData & { offer: OfferConfig | null });
  'customer.subscription_canceled': (CustomerEventData & SubscriptionNews) | CancelFlowCustomerEventData;
  /** The customer gave a new card on the card-update page (or its processor's checkout); retries of every open failure follow. */
  'customer.payment_method_updated': CustomerEventData & { payment_method: PaymentMethod; source: 'card_update_page' };
  /** Internal: a dunning message carried a personal card-update link (the funnel's first stage). */
  'card_update.link_sent': CardUpdateLinkEventData;
  /** Internal: a card-update link was opened for the first time. */
  'card_update.page_opened': CardUpdateLinkEventData;
  /** Internal: a card was updated through a link. */
  'card_update.completed': CardUpdateLinkEventData;
  'campaign.message_sent': EnrollmentEventData & { step: number; channel: CampaignChannel };
  /** Internal: an enrollment was created; feeds campaign analytics. */
  'campaign.enrolled': EnrollmentEventData & { campaign_version: number };
  /** Internal: a recovery settled an active enrollment, crediting its campaign and last step sent. */
  'campaign.recovered': EnrollmentEventData & { step: number | null; amount: number; currency: string; recovery_channel?: Payment['recovery_channel'] };
  /** Internal: a campaign's status changed; archiving and re-activation sweep its enrollments. */
  'campaign.status_changed': CampaignStatusChanged;
  CancelFlowCompleted: CancelFlowOutcomeData;
  CancelFlowSaved: CancelFlowOutcomeData;
}

export type EventType = keyof EventPayloads;

/** One event; `ServiceEvent<'payment.failed'>` is that type's, `ServiceEvent` any of them, told apart by `type`. */
export type ServiceEvent<T extends EventType = EventType> = {
  [K in T]: { id: string; type: K; created: string; livemode: boolean; data: EventPayloads[K] };
}[T];

export function newEvent<T extends EventType>(tenant: Tenant, type: T, data: EventPayloads[T], now: Date): ServiceEvent<T> {
  return { id: newId('evt', now), type, created: now.toISOString(), livemode: tenant.environment === 'live', data } as ServiceEvent<T>;
}

/**
 * Event types merchants can subscribe to. Every other type is internal (INTERNAL_EVENT_TYPES): not
 * subscribable, not even through "*", and never fanned out (docs/decisions.md).
 */
export const DELIVERED_EVENT_TYPES = [
  'customer.created',
  'customer.deleted',
  'customer.retained',
  'customer.subscription_canceled',
  'customer.payment_method_updated',
  'payment.failed',
  'payment.retry_scheduled',
  'payment.retry_failed',
  'payment.network_held',
  'payment.recovered',
  'payment.terminal',
  'campaign.message_sent',
] as const satisfies readonly EventType[];

/**
 * Event types kept for the service's own consumers. CancelFlowCompleted / CancelFlowSaved are the
 * cancel flow's recovery records (§4.5), whose public meaning reaches merchants as customer.retained
 * and customer.subscription_canceled. campaign.enrolled / campaign.recovered feed campaign analytics;
 * merchants see enrollments through the campaigns API and recoveries as payment.recovered.
 * The card_update.* events count the card-update funnel per campaign; merchants see the outcome as
 * customer.payment_method_updated and payment.recovered. campaign.status_changed has archiving and re-activation sweep a campaign's enrollments; merchants
 * made the change themselves and see it on the campaign. payment.recategorized and
 * payment.terminal_reversed keep the analytics cohorts exact; merchants read the category on the
 * payment itself, and a terminal payment paid after all reaches them as payment.recovered.
 * customer.renamed has the search index follow a new name or email; merchants see it on the customer.
 */
export const INTERNAL_EVENT_TYPES = [
  'CancelFlowCompleted',
  'CancelFlowSaved',
  'customer.renamed',
  'campaign.enrolled',
  'campaign.recovered',
  'campaign.status_changed',
  'card_update.link_sent',
  'card_update.page_opened',
  'card_update.completed',
  'payment.recategorized',
  'payment.terminal_reversed',
] as const satisfies readonly EventType[];

/** Compile-time check: a new event type must be listed as delivered or internal, so it is never exposed by accident. */
type UndecidedEventType = Exclude<EventType, (typeof DELIVERED_EVENT_TYPES)[number] | (typeof INTERNAL_EVENT_TYPES)[number]>;
export const EVERY_EVENT_TYPE_DECIDED: [UndecidedEventType] extends [never] ? true : never = true;

export const isDelivered = (type: EventType): boolean => (DELIVERED_EVENT_TYPES as readonly string[]).includes(type);
