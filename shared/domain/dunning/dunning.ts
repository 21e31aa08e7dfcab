import { newId } from '../../ids.ts';
import { findCampaign, findCampaignVersion, getCampaign } from '../../store/campaigns.ts';
import { findCustomer, getCustomer } from '../../store/customers.ts';
import {
  campaignCountersWrite,
  enrollmentsOf,
  findEnrollment,
  newEnrollmentWrite,
  saveEnrollmentWrite,
  type CampaignOutcomeCounts,
} from '../../store/enrollments.ts';
import { recordEventWrite } from '../../store/events.ts';
import { findPayment, getPayment } from '../../store/payments.ts';
import { transact, type TransactItem } from '../../store/transactions.ts';
import { calendarStopReason } from './calendar-triggers.ts';
import { triggerFires, type EnrollmentOccasion } from './campaign-triggers.ts';
import { hasEnded, type Customer, type PaymentMethod } from '../../model/customer.ts';
import { creditsRecovery, lastSentStep, sameCard, type CalendarOccasion, type Enrollment, type StopReason } from '../../model/enrollment.ts';
import { notFound, stateConflict } from '../../model/errors.ts';
import { isOpen, type Payment } from '../../model/payment.ts';
import { shiftOutOfQuietHours } from './quiet-hours.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { TenantConfiguration } from '../../model/tenant-configuration.ts';
import type { Ports } from '../../ports/ports.ts';
import type { CampaignVersion } from '../../model/campaign.ts';
import { newEvent } from '../../model/events.ts';
import { BACKGROUND_WRITE, LOST, writeOptimistically, type ContentionPolicy } from '../contention.ts';

/**
 * The dunning engine: enrolls customers into active campaigns when failures arrive, sends each step
 * when it comes due (through the scheduler), and ends sequences on the stop conditions.
 */

/** The dunning engine schedules each enrollment's next step and cancels it when the sequence ends. */
export type DunningPorts = Pick<Ports, 'scheduler'>;

export const stepJobId = (enrollmentId: string, step: number): string => `step-${enrollmentId}-${step}`;

/** When a step is due: its delay from enrollment (first step) or from the previous step, moved out of quiet hours. */
export function stepDueAt(version: Pick<CampaignVersion, 'steps' | 'quiet_hours'>, step: number, from: Date): Date {
  const delay = version.steps[step]!.delay_hours * 3600_000;
  return shiftOutOfQuietHours(new Date(from.getTime() + delay), version.quiet_hours);
}

/** Schedules the enrollment's next step; `deferrals` counts the times it has already waited for a sibling's step (siblingWait). */
export async function scheduleStep(ports: DunningPorts, tenant: Tenant, enrollment: Enrollment, at: Date, deferrals = 0): Promise<void> {
  await ports.scheduler.schedule({
    id: stepJobId(enrollment.id, enrollment.next_step),
    kind: 'campaign-step',
    runAt: at,
    tenant,
    payload: {
      customer_id: enrollment.customer_id,
      payment_id: enrollment.payment_id,
      campaign_id: enrollment.campaign_id,
      step: enrollment.next_step,
      ...(enrollment.calendar ? { calendar_key: enrollment.calendar.key } : {}),
      ...(deferrals > 0 ? { deferrals } : {}),
    },
  });
}

function newEnrollment(
  campaignId: string,
  version: CampaignVersion,
  customer: Customer,
  paymentId: string | null,
  calendar: CalendarOccasion | null,
  card: PaymentMethod | null,
  now: Date,
): Enrollment {
  const at = now.toISOString();
  return {
    id: newId('enr', now),
    campaign_id: campaignId,
    campaign_version: version.version,
    customer_id: customer.id,
    payment_id: paymentId,
    calendar,
    status: 'active',
    stop_reason: null,
    next_step: 0,
    next_step_at: stepDueAt(version, 0, now).toISOString(),
    messages_sent: 0,
    last_sent_step: null,
    held: false,
    card_at_enrollment: card,
    enrolled_at: at,
    updated_at: at,
    version: 1,
  };
}

/**
 * Creates the enrollment once (a replayed event, or the calendar scan seeing the customer again,
 * finds it and schedules its step again, harmlessly). `calendar` names a calendar trigger's occasion.
 */
export async function enroll(
  ports: DunningPorts,
  tenant: Tenant,
  campaignId: string,
  version: CampaignVersion,
  customer: Customer,
  paymentId: string | null,
  now: Date,
  calendar: CalendarOccasion | null = null,
  card: PaymentMethod | null = customer.payment_method,
): Promise<Enrollment | undefined> {
  const enrollment = newEnrollment(campaignId, version, customer, paymentId, calendar, card, now);
  // campaign.enrolled (internal) feeds campaign analytics; it commits only with a new enrollment.
  const enrolled = newEvent(
    tenant,
    'campaign.enrolled',
    { campaign_id: campaignId, enrollment_id: enrollment.id, customer_id: customer.id, payment_id: paymentId, campaign_version: version.version },
    now,
  );
  const result = await transact([
    newEnrollmentWrite(tenant, enrollment),
    campaignCountersWrite(tenant, campaignId, { enrolled: 1, active: 1 }),
    recordEventWrite(tenant, enrolled),
  ]);
  const current = result.committed ? enrollment : await findEnrollment(tenant, enrollment);
  if (current?.status === 'active' && current.next_step_at !== null) await scheduleStep(ports, tenant, current, new Date(current.next_step_at));
  return result.committed ? enrollment : undefined;
}

/**
 * Enrolls the customer of a failure into every active campaign whose trigger and conditions it meets.
 * `failedAt`: when the failure was recorded (its event's time), for a payment settled since.
 */
export async function enrollForFailure(
  ports: DunningPorts,
  configuration: Pick<TenantConfiguration, 'campaigns'>,
  tenant: Tenant,
  paymentId: string,
  occasion: EnrollmentOccasion,
  now: Date,
  failedAt?: string,
): Promise<Enrollment[]> {
  // Independent reads side by side: every failure's event waits on these before its first message is scheduled.
  const [payment, campaigns] = await Promise.all([findPayment(tenant, paymentId), configuration.campaigns()]);
  const active = campaigns.filter((campaign) => campaign.status === 'active');
  // Decided as of the failure, not of the payment now: skipping a payment settled by the time its
  // event is handled would let a delayed delivery change what campaigns count. But a charge already
  // paid when its failure was recorded (the processor's success came first) was never open: nothing
  // to dun. Erased (no customer): nobody to dun.
  const paidWhenRecorded = failedAt !== undefined && payment?.recovered_at != null && Date.parse(payment.recovered_at) <= Date.parse(failedAt);
  if (!payment || payment.customer_id === null || active.length === 0 || paidWhenRecorded) return [];
  const customer = await findCustomer(tenant, payment.customer_id);
  if (!customer) return [];
  const facts = {
    occasion,
    amount: payment.amount,
    declineCategory: payment.decline_category,
    declineSubcategory: payment.decline_subcategory,
    openFailures: customer.failed_payments,
    paymentMethod: customer.payment_method,
    now,
  };
  // Each campaign's enrollment is its own idempotent transaction, so they are made together.
  const enrolled = await Promise.all(
    active
      .filter((campaign) => triggerFires(campaign, facts))
      .map(async (campaign) => {
        const version = await findCampaignVersion(tenant, campaign.id, campaign.version);
        // Until a retry tried another card, the sequence watches for an update of the one that failed, however late its event is handled.
        const card = payment.retries.length === 0 && payment.failed_card !== undefined ? payment.failed_card : customer.payment_method;
        return version ? enroll(ports, tenant, campaign.id, version, customer, payment.id, now, null, card) : undefined;
      }),
  );
  // Settled before its failure reached dunning (a delivery that failed until it was redriven after the
  // settlement's own event): that event found nothing to end, so the settlement is applied now, as it
  // would have been in order. Repeating it is harmless (credits once, ends active enrollments only).
  if (!isOpen(payment.status)) await settleEnrollments(ports, tenant, payment, now);
  return enrolled.filter((enrollment) => enrollment !== undefined);
}

/** POST /v1/campaigns/{id}/enrollments: the `manual` trigger, or any active campaign on demand. */
export async function enrollManually(
  ports: DunningPorts,
  tenant: Tenant,
  campaignId: string,
  customerId: string,
  paymentId: string | null,
  now: Date,
): Promise<Enrollment> {
  const campaign = await getCampaign(tenant, campaignId);
  if (campaign.status !== 'active') throw stateConflict(`Campaign '${campaignId}' is ${campaign.status}: only active campaigns enroll customers.`);
  const customer = await getCustomer(tenant, customerId);
  if (paymentId !== null) {
    const payment = await getPayment(tenant, paymentId);
    if (payment.customer_id !== customerId) throw notFound('payment', paymentId);
    // A settled failure has nothing to dun: the enrollment would stop before its first step.
    if (!isOpen(payment.status)) {
      throw stateConflict(`Payment '${paymentId}' is ${payment.status}: only open failures (pending, retrying, communication_pending) can be enrolled.`);
    }
  }
  const version = await findCampaignVersion(tenant, campaign.id, campaign.version);
  if (!version) throw notFound('campaign version', `${campaignId}@${campaign.version}`);
  const enrollment = await enroll(ports, tenant, campaign.id, version, customer, paymentId, now);
  if (!enrollment) throw stateConflict(`Customer '${customerId}' is already enrolled in campaign '${campaignId}' for this failure.`);
  return enrollment;
}

/** Ends an enrollment and moves the campaign's counters with it (and any `extra` writes, e.g. its event), in one transaction. */
export async function finish(
  ports: DunningPorts,
  tenant: Tenant,
  enrollment: Enrollment,
  status: Enrollment['status'],
  reason: StopReason | null,
  now: Date,
  counts: CampaignOutcomeCounts = {},
  extra: readonly TransactItem[] = [],
) {
  const next: Enrollment = { ...enrollment, status, stop_reason: reason, next_step_at: null, held: false, updated_at: now.toISOString(), version: enrollment.version + 1 };
  const result = await transact([
    saveEnrollmentWrite(tenant, next, enrollment.version),
    campaignCountersWrite(tenant, enrollment.campaign_id, { ...counts, active: -1, ...(status === 'active' ? {} : { ended: status }) }),
    ...extra,
  ]);
  if (result.committed) await ports.scheduler.cancel(stepJobId(enrollment.id, enrollment.next_step));
  return result.committed;
}

function failureStopReason(stop: CampaignVersion['stop_conditions'], enrollment: Enrollment, payment: Payment | undefined, customer: Customer): StopReason | null {
  if (stop.stop_on_recovery && payment?.status === 'recovered') return 'recovered';
  if (stop.stop_on_terminal && payment?.status === 'terminal') return 'terminal';
  if (stop.stop_on_card_update && !sameCard(enrollment.card_at_enrollment, customer.payment_method)) return 'card_updated';
  // The subscription the failure was for has ended (the customer canceled): asking them to keep it
  // going would be wrong, whatever the campaign's stop conditions (docs/decisions.md, "Dunning engine").
  const subscription = payment?.subscription_id ? customer.subscriptions.find((candidate) => candidate.id === payment.subscription_id) : undefined;
  if (subscription && hasEnded(subscription)) return 'subscription_ended';
  return null;
}

export function stopReason(version: CampaignVersion, enrollment: Enrollment, payment: Payment | undefined, customer: Customer, now: Date): StopReason | null {
  const stop = version.stop_conditions;
  // A calendar occasion has no failure to recover or lose: whether it still holds decides (calendar-triggers.ts).
  const reason = enrollment.calendar
    ? calendarStopReason(enrollment.calendar, enrollment.card_at_enrollment, customer, now)
    : failureStopReason(stop, enrollment, payment, customer);
  return reason ?? (enrollment.messages_sent >= stop.max_attempts ? 'max_attempts' : null);
}

/**
 * What a recovered or terminal payment does to its enrollments: a recovery is credited to the
 * campaigns whose sequence reached the customer (`creditsRecovery`) and ends the running ones that
 * stop on recovery; a terminal outcome ends those that stop on terminal.
 */
export async function settleEnrollments(
  ports: DunningPorts,
  tenant: Tenant,
  payment: Pick<Payment, 'id' | 'customer_id' | 'status' | 'amount' | 'currency' | 'recovered_at'> & Partial<Pick<Payment, 'recovery_channel'>>,
  now: Date,
): Promise<void> {
  if (payment.customer_id === null) return;
  for (const enrollment of await enrollmentsOf(tenant, payment.customer_id, payment.id)) {
    if (payment.status === 'recovered') {
      await creditRecovery(ports, tenant, enrollment, payment, now);
      continue;
    }
    if (payment.status !== 'terminal' || enrollment.status !== 'active') continue;
    const version = await findCampaignVersion(tenant, enrollment.campaign_id, enrollment.campaign_version);
    if (version?.stop_conditions.stop_on_terminal !== false) await finish(ports, tenant, enrollment, 'stopped', 'terminal', now, { terminal: 1 });
  }
}


/**
 * Credits the campaign with the payment's recovery if the enrollment earns it (`creditsRecovery`, as
 * of the recovery, however late its event is handled): its counts, and the last step sent for
 * campaign analytics. A running sequence that stops on recovery ends. Once per enrollment.
 */
export async function creditRecovery(
  ports: DunningPorts,
  tenant: Tenant,
  enrollment: Enrollment,
  payment: Pick<Payment, 'id' | 'amount' | 'currency' | 'recovered_at'> & Partial<Pick<Payment, 'recovery_channel'>>,
  now: Date,
): Promise<void> {
  const recoveredAt = payment.recovered_at ? new Date(payment.recovered_at) : now;
  // A step or a stop can save the enrollment while it is credited: the credit is tried again on the
  // enrollment as it is then. Past the last try the error has the event (or the step job) delivered
  // again: a credit is safe to repeat (recovered_at).
  const crediting: ContentionPolicy = {
    write: 'campaign_credit',
    attempts: 5,
    backoff: BACKGROUND_WRITE,
    exhausted: (attempts) => new Error(`Could not credit the recovery of ${payment.id} to enrollment ${enrollment.id} after ${attempts} conflicting rounds`),
  };
  await writeOptimistically(crediting, async (round) => {
    const current = round === 0 ? enrollment : await findEnrollment(tenant, enrollment);
    if (!current || !creditsRecovery(current, recoveredAt)) return;
    return (await creditOnce(ports, tenant, current, payment, now)) ? undefined : LOST;
  });
}

async function creditOnce(
  ports: DunningPorts,
  tenant: Tenant,
  enrollment: Enrollment,
  payment: Pick<Payment, 'id' | 'amount' | 'currency'> & Partial<Pick<Payment, 'recovery_channel'>>,
  now: Date,
): Promise<boolean> {
  const [version, campaign] = await Promise.all([
    findCampaignVersion(tenant, enrollment.campaign_id, enrollment.campaign_version),
    findCampaign(tenant, enrollment.campaign_id),
  ]);
  // campaign.recovered (internal) credits the campaign and the last step sent, for campaign analytics.
  const credited = newEvent(
    tenant,
    'campaign.recovered',
    {
      campaign_id: enrollment.campaign_id,
      enrollment_id: enrollment.id,
      customer_id: enrollment.customer_id,
      payment_id: payment.id,
      step: lastSentStep(enrollment),
      amount: payment.amount,
      currency: payment.currency,
      recovery_channel: payment.recovery_channel ?? null,
    },
    now,
  );
  // A sequence the terminal outcome stopped, paid after all: its campaign's outcome moves from terminal to recovered.
  const wasTerminal = enrollment.status === 'stopped' && enrollment.stop_reason === 'terminal';
  const counts = {
    recovered: 1,
    recoveredAmount: { currency: payment.currency, amount: payment.amount },
    setPrimaryCurrency: campaign?.primary_currency === null,
    ...(wasTerminal ? { terminal: -1 } : {}),
  };
  const marked: Enrollment = { ...enrollment, recovered_at: now.toISOString(), ...(wasTerminal ? { stop_reason: 'recovered' as const } : {}) };
  if (enrollment.status === 'active' && version?.stop_conditions.stop_on_recovery !== false) {
    return finish(ports, tenant, marked, 'stopped', 'recovered', now, counts, [recordEventWrite(tenant, credited)]);
  }
  // Credited, and otherwise left as it is: a running sequence the merchant keeps going, or one that ended.
  const result = await transact([
    saveEnrollmentWrite(tenant, { ...marked, updated_at: now.toISOString(), version: enrollment.version + 1 }, enrollment.version),
    campaignCountersWrite(tenant, enrollment.campaign_id, counts),
    recordEventWrite(tenant, credited),
  ]);
  return result.committed;
}
