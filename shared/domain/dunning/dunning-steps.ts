import { JOB_ASYNC_RETRIES } from '../../jobs.ts';
import { log } from '../../log.ts';
import { metrics } from '../../metrics.ts';
import { ChannelUnavailable, PermanentSendFailure, type SendRefusal } from '../../ports/messaging.ts';
import type { Ports } from '../../ports/ports.ts';
import { findCampaign, findCampaignVersion } from '../../store/campaigns.ts';
import { findCustomer } from '../../store/customers.ts';
import {
  campaignCountersWrite,
  claimMessageSlot,
  findEnrollment,
  restoreMessageSlot,
  saveEnrollment,
  saveEnrollmentWrite,
  siblingTurns,
  type EnrollmentRef,
} from '../../store/enrollments.ts';
import { recordEventWrite } from '../../store/events.ts';
import { findMerchant } from '../../store/merchants.ts';
import { findPayment } from '../../store/payments.ts';
import { transact, type TransactItem } from '../../store/transactions.ts';
import type { CampaignStep } from '../../model/campaign.ts';
import type { Customer } from '../../model/customer.ts';
import { creditRecovery, finish, scheduleStep, stepDueAt, stopReason } from './dunning.ts';
import { lastSentStep, MESSAGE_SPACING_HOURS, siblingWait, type Enrollment, type SkipReason } from '../../model/enrollment.ts';
import { shiftOutOfQuietHours } from './quiet-hours.ts';
import { builtInFor, calendarTemplate, templateForAction } from '../templates/built-in-templates.ts';
import { failureFacts, renderMessage, templateValues, type MessageFacts, type MessageOccasion, type RenderedMessage } from '../templates/message-rendering.ts';
import { brandingOf } from '../../store/branding.ts';
import { findTemplate } from '../../store/message-templates.ts';
import type { MessageTemplate } from '../../model/message-template.ts';
import type { Payment } from '../../model/payment.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { Merchant } from '../../model/merchant.ts';
import { newEvent } from '../../model/events.ts';
import type { CardUpdateLink } from '../../model/card-update-link.ts';
import { safePaymentUpdateUrl } from '../../model/payment-update-url.ts';
import type { UpdatePageAddress } from '../../ports/update-page.ts';
import { issueUpdateLink, linkEvent } from '../card-updates/update-links.ts';

/**
 * Sending a due dunning step: the only part of the engine that talks to the mail and sms channels,
 * kept apart so functions that only enroll or stop sequences need no channel configuration.
 */

/** A due step is sent on its channel with the customer's card-update link, and the sequence's next step scheduled (or its end recorded). */
export type StepPorts = Pick<Ports, 'scheduler' | 'mailer' | 'smsSender'> & { updatePage: UpdatePageAddress };

export interface StepReport {
  outcome: 'sent' | 'held' | 'deferred' | 'stopped' | 'completed' | 'stale' | 'skipped';
  reason?: string;
}

/**
 * Sends one due step, unless the enrollment moved on, the campaign is paused (held), a stop condition
 * holds, or a sibling sequence's step due first has not run (deferred: the message slot goes in due order).
 */
export async function runCampaignStep(ports: StepPorts, tenant: Tenant, ref: EnrollmentRef & { step: number; deferrals?: number }, clock: () => Date): Promise<StepReport> {
  const enrollment = await findEnrollment(tenant, ref);
  if (enrollment?.status === 'active' && enrollment.next_step === ref.step + 1 && enrollment.next_step_at !== null) {
    // This step was recorded by an earlier run that failed before scheduling the next one (the scheduler throttled): schedule it now.
    await scheduleStep(ports, tenant, enrollment, new Date(enrollment.next_step_at));
    return { outcome: 'stale' };
  }
  if (!enrollment || enrollment.status !== 'active' || enrollment.next_step !== ref.step) return { outcome: 'stale' };
  const now = clock();
  const campaign = await findCampaign(tenant, enrollment.campaign_id);
  if (!campaign || campaign.status === 'archived') {
    await finish(ports, tenant, enrollment, 'removed', 'archived', now);
    return { outcome: 'stopped', reason: 'archived' };
  }
  if (campaign.status !== 'active') {
    const held: Enrollment = { ...enrollment, held: true, updated_at: now.toISOString(), version: enrollment.version + 1 };
    await saveEnrollment(tenant, held, enrollment.version);
    return { outcome: 'held' };
  }
  const [version, customer, payment, merchant] = await Promise.all([
    findCampaignVersion(tenant, enrollment.campaign_id, enrollment.campaign_version),
    findCustomer(tenant, enrollment.customer_id),
    enrollment.payment_id === null ? Promise.resolve(undefined) : findPayment(tenant, enrollment.payment_id),
    findMerchant(tenant.merchantId),
  ]);
  if (!version || !customer) {
    await finish(ports, tenant, enrollment, 'stopped', 'no_contact', now);
    return { outcome: 'stopped', reason: 'no_contact' };
  }
  const reason = stopReason(version, enrollment, payment, customer, now);
  // A recovery seen here first (its event not yet handled) is credited here, once, as there.
  if (reason === 'recovered' && payment) {
    await creditRecovery(ports, tenant, enrollment, payment, now);
    return { outcome: 'stopped', reason };
  }
  if (reason) {
    await finish(ports, tenant, enrollment, 'stopped', reason, now);
    return { outcome: 'stopped', reason };
  }
  const step = version.steps[enrollment.next_step]!;
  // A step already claimed may have gone out: its rerun finishes it, whatever its siblings.
  if (enrollment.sending_step !== enrollment.next_step) {
    const deferrals = ref.deferrals ?? 0;
    const wait = siblingWait(enrollment, await siblingTurns(tenant, enrollment), now, deferrals, JOB_ASYNC_RETRIES.maxEventAgeHours * 60);
    if (wait) {
      await scheduleStep(ports, tenant, enrollment, shiftOutOfQuietHours(wait, version.quiet_hours), deferrals + 1);
      return { outcome: 'deferred', reason: "another of the customer's sequences in this campaign has a step due first that has not run" };
    }
  }
  const claimed = await claimStep(tenant, enrollment, now);
  if (!claimed) return { outcome: 'stale' };
  const { delivery, link } = await sendStep(ports, tenant, claimed, step, customer, payment, merchant, now);
  const sent = delivery === 'sent';
  const outOfSteps = enrollment.next_step + 1 >= version.steps.length;
  // Capped with steps left: the sequence stops on max_attempts, as it would before its next step.
  const capped = !outOfSteps && enrollment.messages_sent + (sent ? 1 : 0) >= version.stop_conditions.max_attempts;
  const isLast = outOfSteps || capped;
  const ended = capped ? 'stopped' : 'completed';
  const next: Enrollment = {
    ...claimed,
    next_step: enrollment.next_step + 1,
    sending_step: null,
    messages_sent: enrollment.messages_sent + (sent ? 1 : 0),
    last_sent_step: sent ? enrollment.next_step : lastSentStep(enrollment),
    next_step_at: isLast ? null : stepDueAt(version, enrollment.next_step + 1, now).toISOString(),
    status: isLast ? ended : 'active',
    stop_reason: capped ? 'max_attempts' : enrollment.stop_reason,
    held: false,
    ...(sent ? {} : { skipped_steps: [...(enrollment.skipped_steps ?? []), { step: enrollment.next_step, reason: delivery, at: now.toISOString() }] }),
    updated_at: now.toISOString(),
    version: claimed.version + 1,
  };
  const writes: TransactItem[] = [saveEnrollmentWrite(tenant, next, claimed.version)];
  if (isLast) writes.push(campaignCountersWrite(tenant, enrollment.campaign_id, { active: -1, ended }));
  if (sent) {
    const data = { campaign_id: enrollment.campaign_id, enrollment_id: enrollment.id, customer_id: customer.id, payment_id: enrollment.payment_id, step: enrollment.next_step, channel: step.channel };
    writes.push(recordEventWrite(tenant, newEvent(tenant, 'campaign.message_sent', data, now)));
    if (link) writes.push(recordEventWrite(tenant, linkEvent(tenant, 'card_update.link_sent', link, now)));
  }
  const committed = (await transact(writes)).committed;
  if (committed && !isLast) await scheduleStep(ports, tenant, next, new Date(next.next_step_at!));
  if (delivery !== 'sent') {
    // Counted once the skip is recorded: a run that lost the race to another records nothing.
    if (committed) metrics.dunningStepSkipped(tenant, { channel: step.channel, reason: delivery, reference: stepReference(enrollment) }, now);
    return { outcome: 'skipped', reason: skipExplanation(delivery, step) };
  }
  if (capped) return { outcome: 'stopped', reason: 'max_attempts' };
  return { outcome: isLast ? 'completed' : 'sent' };
}

/**
 * Marks the due step as going out, before its message is sent: the write that records it afterwards
 * can fail with the message already out, and the job's rerun must then send it again under the same
 * idempotency key, not as a new message. A claim already there (an earlier run's, whose record
 * failed) is taken over; undefined when another run moved the enrollment on.
 */
async function claimStep(tenant: Tenant, enrollment: Enrollment, now: Date): Promise<Enrollment | undefined> {
  if (enrollment.sending_step === enrollment.next_step) return enrollment;
  const claimed: Enrollment = { ...enrollment, sending_step: enrollment.next_step, updated_at: now.toISOString(), version: enrollment.version + 1 };
  if (await saveEnrollment(tenant, claimed, enrollment.version)) return claimed;
  // Another run of this job claimed the step meanwhile: its claim is as good as ours.
  const current = await findEnrollment(tenant, enrollment);
  return current?.status === 'active' && current.sending_step === enrollment.next_step && current.next_step === enrollment.next_step ? current : undefined;
}

/** The job's report of a skipped step: names the channel, never the address. */
function skipExplanation(reason: SkipReason, step: CampaignStep): string {
  switch (reason) {
    case 'no_address':
      return `no ${step.channel === 'sms' ? 'phone number' : 'email address'} on file`;
    case 'channel_unavailable':
      return `the ${step.channel} channel is not configured for this deployment`;
    case 'recipient_rejected':
      return `the ${step.channel} provider refused the recipient for good`;
    case 'sender_rejected':
      return `the ${step.channel} provider refused this deployment's sender for good`;
    case 'duplicate':
      return `the campaign messaged the customer about another failure less than ${MESSAGE_SPACING_HOURS} hours ago`;
  }
}

/**
 * The template a step sends: the merchant's own as named, else a built-in one. A calendar step on a
 * built-in failure template gets the trigger's reminder instead (calendarTemplate); a merchant's
 * template missing at send time (an enrollment on a version saved before the template was checked)
 * falls back to the built-in for the decline, as steps always did.
 */
async function templateFor(tenant: Tenant, enrollment: Enrollment, step: CampaignStep, payment: Payment | undefined): Promise<MessageTemplate> {
  const calendar = enrollment.calendar;
  if (builtInFor(step.template_id, step.channel)) {
    return builtInFor(calendar ? calendarTemplate(step.template_id, calendar.trigger) : step.template_id, step.channel)!;
  }
  const own = await findTemplate(tenant, step.template_id);
  if (own && own.channel === step.channel) return own;
  log.warn('dunning step template missing: sending the built-in one', { template_id: step.template_id, reference: stepReference(enrollment) });
  return fallbackTemplate(enrollment, step, payment);
}

/** The built-in that fits the occasion: the calendar trigger's reminder, or the decline's customer action. */
const fallbackTemplate = (enrollment: Enrollment, step: CampaignStep, payment: Payment | undefined): MessageTemplate =>
  builtInFor(enrollment.calendar ? calendarTemplate('', enrollment.calendar.trigger) : templateForAction(payment?.customer_action ?? null), step.channel)!;

/** What the message is about: the failure, or the calendar occasion and the card it concerns. */
function factsOf(enrollment: Enrollment, customer: Customer, payment: Payment | undefined, updateUrl: string | null): MessageFacts {
  const facts = failureFacts(customer, payment, updateUrl);
  const calendar = enrollment.calendar;
  if (!calendar || !enrollment.card_at_enrollment) return facts;
  const occasion: MessageOccasion = calendar.trigger === 'card_expiring' ? { kind: 'card_expiring' } : { kind: 'pre_dunning', renewsAt: calendar.renews_at! };
  const subscription = customer.subscriptions.find((s) => s.id === calendar.subscription_id);
  return {
    ...facts,
    amount: calendar.amount,
    currency: calendar.currency ?? customer.primary_currency ?? 'usd',
    plan: subscription?.plan ?? null,
    card: enrollment.card_at_enrollment,
    occasion,
  };
}

/** Names a step in logs and metrics without naming the person: `enr_…#2`. */
const stepReference = (enrollment: Enrollment): string => `${enrollment.id}#${enrollment.next_step}`;

async function sendStep(
  ports: StepPorts,
  tenant: Tenant,
  enrollment: Enrollment,
  step: CampaignStep,
  customer: Customer,
  payment: Payment | undefined,
  merchant: Merchant | undefined,
  now: Date,
): Promise<{ delivery: 'sent' | SkipReason; link?: CardUpdateLink }> {
  const reference = stepReference(enrollment);
  const to = step.channel === 'email' ? customer.email : customer.phone;
  if (!to) return { delivery: 'no_address' };
  const slot = await claimMessageSlot(tenant, enrollment, now, MESSAGE_SPACING_HOURS);
  if (!slot) return { delivery: 'duplicate' };
  // The merchant's own page wins when set; otherwise the customer's personal link to ours.
  const merchantPage = safePaymentUpdateUrl(merchant?.payment_update_url ?? null);
  const personal = merchantPage === null ? await issueUpdateLink(ports, tenant, enrollment, step.channel, now) : undefined;
  const [template, branding] = await Promise.all([templateFor(tenant, enrollment, step, payment), brandingOf(tenant)]);
  const values = templateValues({ ...factsOf(enrollment, customer, payment, merchantPage), personalLink: personal?.url ?? null }, branding, now);
  // The step's subject wins over the template's; `{merchant}` in it is the merchant's name, as it always was.
  const render = (chosen: MessageTemplate) => renderMessage(chosen, values, branding, step.subject?.replaceAll('{merchant}', branding.name));
  let message: RenderedMessage;
  try {
    message = render(template);
  } catch (error) {
    // Checked with sample data when saved, a template can still fail on one customer's values (a bound, a filter's input): the customer still hears.
    log.warn('dunning step template failed to render: sending the built-in one', { template_id: template.id, reference, reason: error instanceof Error ? error.message : String(error) });
    message = render(fallbackTemplate(enrollment, step, payment));
  }
  const delivery = await deliver(step, reference, () =>
    message.channel === 'email'
      ? ports.mailer.send({ tenant, to, reference, idempotencyKey: reference, subject: message.subject, text: message.text, html: message.html })
      : ports.smsSender.send({ tenant, to, reference, idempotencyKey: reference, body: message.text }),
  );
  // Only a message sent keeps the slot: a skipped one leaves it to the customer's other sequences.
  if (delivery !== 'sent') await restoreMessageSlot(tenant, enrollment, now, slot.previous);
  return { delivery, link: personal?.link };
}

/**
 * A channel the deployment has no identity for, and a send the provider refused for good (an
 * invalid or opted-out recipient, a sender it does not accept), are recorded like a missing address,
 * since retrying cannot help; any other failure fails the job, so the scheduler retries it.
 */
async function deliver(step: CampaignStep, reference: string, send: () => Promise<unknown>): Promise<'sent' | 'channel_unavailable' | SendRefusal> {
  try {
    await send();
    return 'sent';
  } catch (error) {
    if (error instanceof ChannelUnavailable) {
      // The operator's to fix (deploy with the channel's context), so it is logged as a warning on every step it costs.
      log.warn('dunning step not sent: channel not configured', { channel: step.channel, reference, reason: error.message });
      return 'channel_unavailable';
    }
    if (error instanceof PermanentSendFailure) {
      // The provider's code and the step's reference only: its message, kept on `cause`, may quote the address.
      log.warn('dunning step not sent: refused by the provider', { channel: step.channel, reference, refusal: error.refusal, provider_code: error.code });
      return error.refusal;
    }
    throw error;
  }
}
