import type { CalendarTrigger, CampaignCounters } from './campaign.ts';
import type { PaymentMethod } from './customer.ts';
import type { PageRequest } from './pagination.ts';

/** What a calendar enrollment is about; stored on it, so its messages and stops need no re-derivation. */
export interface CalendarOccasion {
  trigger: CalendarTrigger;
  /** Unique per customer and occasion (card and expiry month, or subscription and renewal): the enrollment's key. */
  key: string;
  /** pre_dunning: the subscription that renews. */
  subscription_id: string | null;
  /** pre_dunning: when it renews (its current_period_end). */
  renews_at: string | null;
  /** What is at stake, in the smallest unit: the renewal's amount (card_expiring: the largest renewing subscription's), when known. */
  amount: number | null;
  currency: string | null;
}

/** A customer's passage through one campaign for one failure (or one manual enrollment). */
export const ENROLLMENT_STATUSES = ['active', 'completed', 'stopped', 'removed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

export type EnrollmentTotals = Record<EnrollmentStatus, number>;

/**
 * A campaign's enrollments by status, from its counters, which the transactions that enroll and
 * end enrollments move. Only when they account for every enrollment (those erased with their
 * customer included): a campaign from before the ended ones were counted gets undefined, and its
 * lists count the index instead.
 */
export function enrollmentTotals(
  counters: Pick<CampaignCounters, 'enrolled_count' | 'active_count' | 'completed_count' | 'stopped_count' | 'removed_count' | 'erased_count'>,
): EnrollmentTotals | undefined {
  const totals: EnrollmentTotals = {
    active: counters.active_count,
    completed: counters.completed_count ?? 0,
    stopped: counters.stopped_count ?? 0,
    removed: counters.removed_count ?? 0,
  };
  const accounted = totals.active + totals.completed + totals.stopped + totals.removed;
  return accounted + (counters.erased_count ?? 0) === counters.enrolled_count ? totals : undefined;
}

/** `occasion_passed` ends calendar sequences (calendar-triggers.ts); `subscription_ended` those and failure sequences whose subscription ended. */
export type StopReason =
  | 'recovered'
  | 'terminal'
  | 'card_updated'
  | 'max_attempts'
  | 'archived'
  | 'no_contact'
  | 'occasion_passed'
  | 'subscription_ended';

/**
 * Why a due step sent nothing: the customer has no address for its channel, the deployment has no
 * identity to send on it (docs/decisions.md, "Messaging channels"), the provider refused the
 * recipient or the sender for good ("Refused sends"), or the same campaign messaged the customer
 * about another failure within MESSAGE_SPACING_HOURS (Dunning engine, "Several failures").
 */
export const SKIP_REASONS = ['no_address', 'channel_unavailable', 'recipient_rejected', 'sender_rejected', 'duplicate'] as const;

/**
 * A customer with several failures is enrolled once per failure (as Stripe dunns each invoice), but
 * one campaign's sequences do not message them side by side: a step of another failure's sequence
 * within this many hours of the campaign's last message to them is skipped as `duplicate`.
 */
export const MESSAGE_SPACING_HOURS = 12;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** How long a waiting step first waits before it looks again: the longer gap between Lambda's retries of the sibling's failed try. */
export const SIBLING_RECHECK_MINUTES = 2;

/** The longest gap between its looks: past Lambda's retries, a sibling held in Lambda's queue may run at any time within hours. */
const SIBLING_RECHECK_MAX_MINUTES = 60;

/** Minutes before a waiting step looks again after `deferrals` looks: 2, doubling, at most an hour. */
const siblingRecheckMinutes = (deferrals: number): number => Math.min(SIBLING_RECHECK_MINUTES * 2 ** deferrals, SIBLING_RECHECK_MAX_MINUTES);

/**
 * Minutes a step has waited after `deferrals` looks: counted in the step's job rather than measured on
 * the clock, since after an outage every step fires hours late and a bound from the sibling's due
 * time would already have passed.
 */
export function siblingWaited(deferrals: number): number {
  let minutes = 0;
  for (let look = 0; look < deferrals; look++) minutes += siblingRecheckMinutes(look);
  return minutes;
}

/** An enrollment's pending step, as a turn for the message slot: its due time, then its id, in total order. */
export type StepTurn = Pick<Enrollment, 'id' | 'next_step_at'>;

const comesBefore = (a: StepTurn, b: StepTurn): boolean =>
  a.next_step_at !== null && b.next_step_at !== null && (a.next_step_at < b.next_step_at || (a.next_step_at === b.next_step_at && a.id < b.id));

/**
 * Until when a due step waits for its siblings: while one of them has a step due before it (or at
 * the same time with a smaller id) that has not run, looking again after `siblingRecheckMinutes`, so
 * the slot goes in due order whatever retries did to the order the jobs ran in (docs/faults.md,
 * "Sibling sequences"). For at most `maxWaitMinutes` in all: how long the sibling's job can still run
 * without an operator (Lambda's maximum event age); past it, it is in the dead letters. Undefined
 * when the step's turn has come.
 */
export function siblingWait(step: StepTurn, siblings: readonly StepTurn[], now: Date, deferrals: number, maxWaitMinutes: number): Date | undefined {
  if (siblingWaited(deferrals) >= maxWaitMinutes) return undefined;
  if (!siblings.some((sibling) => sibling.id !== step.id && comesBefore(sibling, step))) return undefined;
  return new Date(now.getTime() + siblingRecheckMinutes(deferrals) * 60_000);
}

export interface SkippedStep {
  step: number;
  reason: SkipReason;
  at: string;
}

export interface Enrollment {
  id: string;
  campaign_id: string;
  /** The campaign definition version joined: later updates do not apply to this enrollment (§3.1). */
  campaign_version: number;
  customer_id: string;
  /** The failure that enrolled the customer; null for a manual enrollment without one and for calendar enrollments. */
  payment_id: string | null;
  /** What a calendar trigger enrolled the customer for (card_expiring, pre_dunning); null or absent otherwise. */
  calendar?: CalendarOccasion | null;
  status: EnrollmentStatus;
  stop_reason: StopReason | null;
  /** Index of the step to send next. */
  next_step: number;
  /** When that step is due (after quiet hours), or null when none is. */
  next_step_at: string | null;
  messages_sent: number;
  /**
   * Index of the last step actually sent (a step skipped for want of an address does not count), or
   * null before the first message: the step a recovery is credited to. Absent on enrollments stored
   * before it existed; `lastSentStep` reads those.
   */
  last_sent_step?: number | null;
  /**
   * Steps that came due but sent nothing, and why; absent until the first. Not a stop: the sequence
   * goes on to its next step.
   */
  skipped_steps?: SkippedStep[];
  /**
   * The step whose message is going out: claimed before the send, cleared when the step is recorded.
   * A run that finds its step claimed sends it again under the same idempotency key (the first send's
   * outcome is unknown) and records it. Absent on enrollments stored before it existed.
   */
  sending_step?: number | null;
  /** The step came due while the campaign was paused; activation releases it. */
  held: boolean;
  /** The card on file at enrollment, to notice a card update (stop_on_card_update). */
  card_at_enrollment: PaymentMethod | null;
  /** When the campaign was credited with recovering this enrollment's failure (`creditsRecovery`); null or absent before. */
  recovered_at?: string | null;
  enrolled_at: string;
  updated_at: string;
  version: number;
}

export function sameCard(a: PaymentMethod | null, b: PaymentMethod | null): boolean {
  if (a === null || b === null) return a === b;
  return a.brand === b.brand && a.last_four === b.last_four && a.exp_month === b.exp_month && a.exp_year === b.exp_year;
}

/**
 * How long after a sequence ends its campaign is still credited with the recovery: customers pay
 * days after the reminder that moved them, and the last message of a sequence would never convert.
 */
export const ATTRIBUTION_DAYS = 7;

/** Sequences that ended having reached the customer, not cut off by the campaign or by the failure's fate. */
const ENDED_REACHING_THE_CUSTOMER: ReadonlySet<StopReason | null> = new Set([null, 'max_attempts', 'card_updated']);

/**
 * Whether a recovery of the enrollment's failure now counts for its campaign: while the customer is
 * in the sequence (whatever `stop_on_recovery` says), or within ATTRIBUTION_DAYS after a sequence
 * that messaged them ended by running out of steps, reaching `max_attempts` or their card update,
 * and a sequence its terminal outcome stopped when the processor reports it paid after all. Once per
 * enrollment.
 */
export function creditsRecovery(enrollment: Enrollment, now: Date): boolean {
  if (enrollment.recovered_at) return false;
  if (enrollment.status === 'active') return true;
  // Stopped by a terminal outcome the processor later undid (paid after all): the sequence's outcome follows the payment's.
  if (enrollment.status === 'stopped' && enrollment.stop_reason === 'terminal') return true;
  if (enrollment.status === 'removed' || enrollment.messages_sent === 0 || !ENDED_REACHING_THE_CUSTOMER.has(enrollment.stop_reason)) return false;
  return now.getTime() - Date.parse(enrollment.updated_at) <= ATTRIBUTION_DAYS * 86_400_000;
}

/** The step a recovery now would be credited to (see `last_sent_step`), or null before any message. */
export function lastSentStep(enrollment: Pick<Enrollment, 'last_sent_step' | 'messages_sent' | 'next_step'>): number | null {
  if (enrollment.last_sent_step !== undefined) return enrollment.last_sent_step;
  return enrollment.messages_sent > 0 ? enrollment.next_step - 1 : null;
}

/** GET /v1/customers/{id}/enrollments and /v1/campaigns/{id}/enrollments: newest first, optionally one status. */
export interface EnrollmentListRequest extends PageRequest {
  status?: EnrollmentStatus;
}
