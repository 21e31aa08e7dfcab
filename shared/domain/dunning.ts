import { mailer, smsSender } from '../adapters/messaging.ts';
import { scheduler } from '../adapters/scheduler.ts';
import { newId } from '../ids.ts';
import { findCampaign, findCampaignVersion, listCampaignItems, type CampaignVersion } from '../store/campaigns.ts';
import { findCustomer } from '../store/customers.ts';
import {
  activeEnrollmentsOf,
  campaignCountersWrite,
  enrollmentsOf,
  findEnrollment,
  newEnrollmentWrite,
  saveEnrollmentWrite,
  type CampaignOutcomeCounts,
} from '../store/enrollments.ts';
import { newEvent, recordEventWrite } from '../store/events.ts';
import { findMerchant } from '../store/merchants.ts';
import { findPayment } from '../store/payments.ts';
import { transact, type TransactItem } from '../store/transactions.ts';
import { triggerFires, type EnrollmentOccasion } from './campaign-triggers.ts';
import type { Customer } from './customers.ts';
import { sameCard, type Enrollment, type StopReason } from './enrollments.ts';
import { notFound, stateConflict } from './errors.ts';
import { isBuiltInTemplate, renderEmail, renderSms, templateForAction } from './message-templates.ts';
import type { Payment } from './payments.ts';
import { shiftOutOfQuietHours } from './quiet-hours.ts';
import type { Tenant } from './tenant.ts';

/**
 * The dunning engine: enrolls customers into active campaigns when failures arrive, sends each step
 * when it comes due (through the scheduler), and ends sequences on the stop conditions.
 */

type EnrollmentRef = Pick<Enrollment, 'customer_id' | 'payment_id' | 'campaign_id'>;

export const stepJobId = (enrollmentId: string, step: number): string => `step-${enrollmentId}-${step}`;

/** When a step is due: its delay from enrollment (first step) or from the previous step, moved out of quiet hours. */
export function stepDueAt(version: Pick<CampaignVersion, 'steps' | 'quiet_hours'>, step: number, from: Date): Date {
  const delay = version.steps[step]!.delay_hours * 3600_000;
  return shiftOutOfQuietHours(new Date(from.getTime() + delay), version.quiet_hours);
}

async function scheduleStep(tenant: Tenant, enrollment: Enrollment, at: Date): Promise<void> {
  await scheduler.schedule({
    id: stepJobId(enrollment.id, enrollment.next_step),
    kind: 'campaign-step',
    runAt: at,
    tenant,
    payload: { customer_id: enrollment.customer_id, payment_id: enrollment.payment_id, campaign_id: enrollment.campaign_id, step: enrollment.next_step },
  });
}

function newEnrollment(campaignId: string, version: CampaignVersion, customer: Customer, paymentId: string | null, now: Date): Enrollment {
  const at = now.toISOString();
  return {
    id: newId('enr', now),
    campaign_id: campaignId,
    campaign_version: version.version,
    customer_id: customer.id,
    payment_id: paymentId,
    status: 'active',
    stop_reason: null,
    next_step: 0,
    next_step_at: stepDueAt(version, 0, now).toISOString(),
    messages_sent: 0,
    held: false,
    card_at_enrollment: customer.payment_method,
    enrolled_at: at,
    updated_at: at,
    version: 1,
  };
}

/** Creates the enrollment once (a replayed event finds it and schedules its step again, harmlessly). */
async function enroll(tenant: Tenant, campaignId: string, version: CampaignVersion, customer: Customer, paymentId: string | null, now: Date): Promise<Enrollment | undefined> {
  const enrollment = newEnrollment(campaignId, version, customer, paymentId, now);
  const result = await transact([newEnrollmentWrite(tenant, enrollment), campaignCountersWrite(tenant, campaignId, { enrolled: 1, active: 1 })]);
  const current = result.committed ? enrollment : await findEnrollment(tenant, enrollment);
  if (current?.status === 'active' && current.next_step_at !== null) await scheduleStep(tenant, current, new Date(current.next_step_at));
  return result.committed ? enrollment : undefined;
}

/** Enrolls the customer of a failure into every active campaign whose trigger and conditions it meets. */
export async function enrollForFailure(tenant: Tenant, paymentId: string, occasion: EnrollmentOccasion, now: Date): Promise<Enrollment[]> {
  const payment = await findPayment(tenant, paymentId);
  if (!payment || payment.customer_id === null) return [];
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
  const enrolled: Enrollment[] = [];
  for (const campaign of await listCampaignItems(tenant)) {
    if (campaign.status !== 'active' || !triggerFires(campaign, facts)) continue;
    const version = await findCampaignVersion(tenant, campaign.id, campaign.version);
    if (!version) continue;
    const enrollment = await enroll(tenant, campaign.id, version, customer, payment.id, now);
    if (enrollment) enrolled.push(enrollment);
  }
  return enrolled;
}

/** POST /v1/campaigns/{id}/enrollments: the `manual` trigger, or any active campaign on demand. */
export async function enrollManually(tenant: Tenant, campaignId: string, customerId: string, paymentId: string | null, now: Date): Promise<Enrollment> {
  const campaign = await findCampaign(tenant, campaignId);
  if (!campaign) throw notFound('campaign', campaignId);
  if (campaign.status !== 'active') throw stateConflict(`Campaign '${campaignId}' is ${campaign.status}: only active campaigns enroll customers.`);
  const customer = await findCustomer(tenant, customerId);
  if (!customer) throw notFound('customer', customerId);
  if (paymentId !== null) {
    const payment = await findPayment(tenant, paymentId);
    if (!payment || payment.customer_id !== customerId) throw notFound('payment', paymentId);
  }
  const version = await findCampaignVersion(tenant, campaign.id, campaign.version);
  if (!version) throw notFound('campaign version', `${campaignId}@${campaign.version}`);
  const enrollment = await enroll(tenant, campaign.id, version, customer, paymentId, now);
  if (!enrollment) throw stateConflict(`Customer '${customerId}' is already enrolled in campaign '${campaignId}' for this failure.`);
  return enrollment;
}

/** Ends an enrollment and moves the campaign's counters with it, in one transaction. */
async function finish(tenant: Tenant, enrollment: Enrollment, status: Enrollment['status'], reason: StopReason | null, now: Date, counts: CampaignOutcomeCounts = {}) {
  const next: Enrollment = { ...enrollment, status, stop_reason: reason, next_step_at: null, held: false, updated_at: now.toISOString(), version: enrollment.version + 1 };
  const result = await transact([
    saveEnrollmentWrite(tenant, next, enrollment.version),
    campaignCountersWrite(tenant, enrollment.campaign_id, { ...counts, active: -1 }),
  ]);
  if (result.committed) await scheduler.cancel(stepJobId(enrollment.id, enrollment.next_step));
  return result.committed;
}

function stopReason(version: CampaignVersion, enrollment: Enrollment, payment: Payment | undefined, customer: Customer): StopReason | null {
  const stop = version.stop_conditions;
  if (stop.stop_on_recovery && payment?.status === 'recovered') return 'recovered';
  if (stop.stop_on_terminal && payment?.status === 'terminal') return 'terminal';
  if (stop.stop_on_card_update && !sameCard(enrollment.card_at_enrollment, customer.payment_method)) return 'card_updated';
  if (enrollment.messages_sent >= stop.max_attempts) return 'max_attempts';
  return null;
}

export interface StepReport {
  outcome: 'sent' | 'held' | 'stopped' | 'completed' | 'stale' | 'skipped';
  reason?: string;
}

/** Sends one due step, unless the enrollment moved on, the campaign is paused (held) or a stop condition holds. */
export async function runCampaignStep(tenant: Tenant, ref: EnrollmentRef & { step: number }, clock: () => Date): Promise<StepReport> {
  const enrollment = await findEnrollment(tenant, ref);
  if (!enrollment || enrollment.status !== 'active' || enrollment.next_step !== ref.step) return { outcome: 'stale' };
  const now = clock();
  const campaign = await findCampaign(tenant, enrollment.campaign_id);
  if (!campaign || campaign.status === 'archived') {
    await finish(tenant, enrollment, 'removed', 'archived', now);
    return { outcome: 'stopped', reason: 'archived' };
  }
  if (campaign.status !== 'active') {
    const held: Enrollment = { ...enrollment, held: true, updated_at: now.toISOString(), version: enrollment.version + 1 };
    await transact([saveEnrollmentWrite(tenant, held, enrollment.version)]);
    return { outcome: 'held' };
  }
  const [version, customer, payment, merchant] = await Promise.all([
    findCampaignVersion(tenant, enrollment.campaign_id, enrollment.campaign_version),
    findCustomer(tenant, enrollment.customer_id),
    enrollment.payment_id === null ? Promise.resolve(undefined) : findPayment(tenant, enrollment.payment_id),
    findMerchant(tenant.merchantId),
  ]);
  if (!version || !customer) {
    await finish(tenant, enrollment, 'stopped', 'no_contact', now);
    return { outcome: 'stopped', reason: 'no_contact' };
  }
  const reason = stopReason(version, enrollment, payment, customer);
  if (reason) {
    await finish(tenant, enrollment, 'stopped', reason, now);
    return { outcome: 'stopped', reason };
  }
  const step = version.steps[enrollment.next_step]!;
  const sent = await sendStep(tenant, enrollment, step, customer, payment, merchant?.name ?? 'your subscription');
  const isLast = enrollment.next_step + 1 >= version.steps.length || enrollment.messages_sent + (sent ? 1 : 0) >= version.stop_conditions.max_attempts;
  const next: Enrollment = {
    ...enrollment,
    next_step: enrollment.next_step + 1,
    messages_sent: enrollment.messages_sent + (sent ? 1 : 0),
    next_step_at: isLast ? null : stepDueAt(version, enrollment.next_step + 1, now).toISOString(),
    status: isLast ? 'completed' : 'active',
    held: false,
    updated_at: now.toISOString(),
    version: enrollment.version + 1,
  };
  const writes: TransactItem[] = [saveEnrollmentWrite(tenant, next, enrollment.version)];
  if (isLast) writes.push(campaignCountersWrite(tenant, enrollment.campaign_id, { active: -1 }));
  if (sent) {
    const data = { campaign_id: enrollment.campaign_id, enrollment_id: enrollment.id, customer_id: customer.id, payment_id: enrollment.payment_id, step: enrollment.next_step, channel: step.channel };
    writes.push(recordEventWrite(tenant, newEvent(tenant, 'campaign.message_sent', data, now)));
  }
  if ((await transact(writes)).committed && !isLast) await scheduleStep(tenant, next, new Date(next.next_step_at!));
  if (!sent) return { outcome: 'skipped', reason: `no ${step.channel === 'sms' ? 'phone number' : 'email address'} on file` };
  return { outcome: isLast ? 'completed' : 'sent' };
}

async function sendStep(
  tenant: Tenant,
  enrollment: Enrollment,
  step: CampaignVersion['steps'][number],
  customer: Customer,
  payment: Payment | undefined,
  merchantName: string,
): Promise<boolean> {
  const templateId = isBuiltInTemplate(step.template_id) ? step.template_id : templateForAction(payment?.customer_action ?? null);
  const context = {
    customerName: customer.name,
    merchantName,
    amount: payment?.amount ?? 0,
    currency: payment?.currency ?? customer.primary_currency ?? 'usd',
    updateUrl: null,
  };
  const reference = `${enrollment.id}#${enrollment.next_step}`;
  if (step.channel === 'email') {
    if (!customer.email) return false;
    await mailer.send({ tenant, to: customer.email, reference, ...renderEmail(templateId, context, step.subject) });
    return true;
  }
  if (!customer.phone) return false;
  await smsSender.send({ tenant, to: customer.phone, reference, body: renderSms(templateId, context) });
  return true;
}

/** Ends the enrollments of a payment that was recovered or became terminal, crediting their campaigns. */
export async function settleEnrollments(tenant: Tenant, payment: Pick<Payment, 'id' | 'customer_id' | 'status' | 'amount' | 'currency'>, now: Date): Promise<void> {
  if (payment.customer_id === null) return;
  for (const enrollment of await enrollmentsOf(tenant, payment.customer_id, payment.id)) {
    if (enrollment.status !== 'active') continue;
    const version = await findCampaignVersion(tenant, enrollment.campaign_id, enrollment.campaign_version);
    if (payment.status === 'recovered' && version?.stop_conditions.stop_on_recovery !== false) {
      const campaign = await findCampaign(tenant, enrollment.campaign_id);
      await finish(tenant, enrollment, 'stopped', 'recovered', now, {
        recovered: 1,
        recoveredAmount: { currency: payment.currency, amount: payment.amount },
        setPrimaryCurrency: campaign?.primary_currency === null,
      });
    } else if (payment.status === 'terminal' && version?.stop_conditions.stop_on_terminal !== false) {
      await finish(tenant, enrollment, 'stopped', 'terminal', now, { terminal: 1 });
    }
  }
}

/** Activation releases what a pause held: held steps go out now (quiet hours permitting). */
export async function releaseHeldSteps(tenant: Tenant, campaignId: string, now: Date): Promise<number> {
  let released = 0;
  for (const listed of await activeEnrollmentsOf(tenant, campaignId)) {
    const enrollment = await findEnrollment(tenant, listed);
    if (!enrollment?.held || enrollment.status !== 'active') continue;
    const version = await findCampaignVersion(tenant, campaignId, enrollment.campaign_version);
    const at = version ? shiftOutOfQuietHours(now, version.quiet_hours) : now;
    const next: Enrollment = { ...enrollment, held: false, next_step_at: at.toISOString(), updated_at: now.toISOString(), version: enrollment.version + 1 };
    if ((await transact([saveEnrollmentWrite(tenant, next, enrollment.version)])).committed) {
      await scheduleStep(tenant, next, at);
      released += 1;
    }
  }
  return released;
}

/** Archiving removes every enrollment of the campaign (§3.1); their history stays. */
export async function removeEnrollments(tenant: Tenant, campaignId: string, now: Date): Promise<number> {
  let removed = 0;
  for (const listed of await activeEnrollmentsOf(tenant, campaignId)) {
    const enrollment = await findEnrollment(tenant, listed);
    if (enrollment?.status === 'active' && (await finish(tenant, enrollment, 'removed', 'archived', now))) removed += 1;
  }
  return removed;
}
