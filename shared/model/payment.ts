import type { PaymentMethod } from './customer.ts';
import type { ListRequest, TimeWindow } from './listing.ts';

/** §2.6: what a decline means for recovery (decline-classification.ts decides it from the code). */
export type DeclineCategory = 'soft_retry' | 'hard_customer' | 'terminal' | 'unknown';

/** §2.4 and §3.2. Stored and served in the spec's own field names. */
export const PAYMENT_STATUSES = ['pending', 'retrying', 'recovered', 'terminal', 'communication_pending'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses in which a payment still awaits recovery (counted as the customer's failed_payments). */
export const OPEN_STATUSES: readonly PaymentStatus[] = ['pending', 'retrying', 'communication_pending'];

export interface RetryAttempt {
  attempt: number;
  status: 'failed' | 'succeeded';
  decline_code: string | null;
  attempted_at: string;
  /** The card network's own answer to the attempt, when the processor passed it on. */
  network_decline_code?: string | null;
  network_advice_code?: string | null;
}

/** A card network rule that held back an attempt on the payment's card (domain/declines/network-rules.ts). */
export interface NetworkHold {
  rule: string;
  network: 'visa' | 'mastercard';
  effect: 'never' | 'not_before' | 'limit';
  description: string;
  /** When the card may be tried again; null: not until the customer updates it. */
  next_allowed_at: string | null;
  /** The version of the rules table the decision was taken under. */
  rules_version: string;
  held_at: string;
  /** What the network would have charged for the attempt, in US cents: an estimate from its published fee. */
  fee_avoided_cents: number;
}

/** The delivered event types that tell a payment's story (GET /v1/payments/{id}/events), in the order they can happen. */
export const PAYMENT_HISTORY_TYPES = ['payment.failed', 'payment.retry_scheduled', 'payment.retry_failed', 'payment.network_held', 'campaign.message_sent', 'payment.recovered', 'payment.terminal'] as const;

/** How a payment came back: the analytics channels of recovery. */
export type RecoveryChannel = 'automatic_retry' | 'manual_retry' | 'card_update' | 'dunning_campaign' | 'cancel_flow_save' | 'processor';

/** Who starts a retry: the schedule, the merchant (the retry endpoint), or the customer's new card (the card-update page). */
export const RETRY_TRIGGERS = ['automatic', 'manual', 'card_update'] as const;
export type RetryTrigger = (typeof RETRY_TRIGGERS)[number];

/** The channel a retry's success is credited to. */
export const RETRY_CHANNELS: Readonly<Record<RetryTrigger, RecoveryChannel>> = { automatic: 'automatic_retry', manual: 'manual_retry', card_update: 'card_update' };

export interface Payment {
  id: string;
  customer_id: string | null;
  subscription_id: string | null;
  amount: number;
  currency: string;
  status: PaymentStatus;
  decline_code: string | null;
  decline_category: DeclineCategory;
  decline_subcategory: string | null;
  psp: string;
  psp_payment_id: string;
  retry_count: number;
  max_retries: number;
  next_retry_at: string | null;
  recovered_at: string | null;
  created_at: string;
  updated_at: string;
  /** Internal: which version of the decline mapping classified it (§9). */
  mapping_version: string;
  customer_action: string | null;
  cooldown_hours: number | null;
  psp_subscription_id: string | null;
  /** Every processor id naming the failed charge (what a live retry needs: invoice, payment intent, subscription period). */
  psp_references: string[];
  /** When the attempt now in flight started (status retrying). */
  retry_initiated_at: string | null;
  /** Who started the attempt in flight (status retrying): credited if the processor reports the payment paid meanwhile. Absent on payments claimed before it was kept. */
  retry_trigger?: RetryTrigger;
  /** Attempts in a row that got no answer from the processor (for backoff); reset by any answer. */
  consecutive_no_answers: number;
  retries: RetryAttempt[];
  recovery_channel: RecoveryChannel | null;
  /** The card network's answer to the latest failure, when the processor passed it on. */
  network_decline_code?: string | null;
  network_advice_code?: string | null;
  /**
   * The customer's card when the failure was recorded: what a dunning sequence for it compares with
   * to notice a card update, however late its enrollment runs. Absent on payments recorded before it was kept.
   */
  failed_card?: PaymentMethod | null;
  /** The Idempotency-Key of the manual retry that claimed the current attempt, so its resend finds its own claim. */
  retry_claim_key?: string;
  /** The latest network rule that held back an attempt (absent: none ever did). */
  network_hold?: NetworkHold | null;
  /** Optimistic-lock counter: every state change is conditioned on it. */
  version: number;
}

export const isOpen = (status: PaymentStatus): boolean => OPEN_STATUSES.includes(status);

/** Its customer was erased: the payment is kept for reporting, linked to no one, and recovered no further. */
export const isAnonymised = (payment: Pick<Payment, 'customer_id'>): boolean => payment.customer_id === null;

/** GET /v1/payments (§4.3) and GET /v1/customers/{id}/payments (§4.2). */
export const PAYMENT_SORTS = ['created_at', 'amount', 'status'] as const;
export type PaymentSort = (typeof PAYMENT_SORTS)[number];

export interface PaymentFilters {
  status?: PaymentStatus;
  customer_id?: string;
  decline_category?: DeclineCategory;
  decline_code?: string;
  psp?: string;
  currency?: string;
  amount_min?: number;
  amount_max?: number;
  created?: TimeWindow;
}

export interface PaymentListRequest extends ListRequest<PaymentSort> {
  filters: PaymentFilters;
}

export const DECLINE_CATEGORIES = ['soft_retry', 'hard_customer', 'terminal', 'unknown'] as const satisfies readonly DeclineCategory[];
