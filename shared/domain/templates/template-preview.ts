import { newId } from '../../ids.ts';
import { ServiceError, stateConflict, validationFailed } from '../../model/errors.ts';
import { smsLength, type MessageTemplate, type SmsLength } from '../../model/message-template.ts';
import { isOpen } from '../../model/payment.ts';
import { retryAfterSeconds } from '../../model/sliding-window.ts';
import type { Tenant } from '../../model/tenant.ts';
import { ChannelUnavailable, PermanentSendFailure } from '../../ports/messaging.ts';
import type { Ports } from '../../ports/ports.ts';
import { brandingOf } from '../../store/branding.ts';
import { findCustomer } from '../../store/customers.ts';
import { testSendWindowPk } from '../../store/keys.ts';
import { findMerchant } from '../../store/merchants.ts';
import { paymentsOfCustomer } from '../../store/payments.ts';
import { admitRequest } from '../../store/rate-limits.ts';
import { failureFacts, renderMessage, sampleFacts, templateValues, type MessageFacts, type RenderedMessage } from './message-rendering.ts';
import { templateOf } from './template-lifecycle.ts';

/**
 * Seeing a template before customers do: rendered with sample data or one customer's latest open
 * failure (preview), or sent to the merchant's own address or phone (test send).
 */

export interface Preview {
  template: MessageTemplate;
  /** `sample`, or the customer whose data filled the variables. */
  customerId: string | null;
  /** The failure the customer's data came from; null for samples and customers with no open failure. */
  paymentId: string | null;
  message: RenderedMessage;
  /** sms templates: what the rendered text costs. */
  sms: SmsLength | null;
}

/** The customer's facts for their most recent open failure (or their account alone when none is open). */
async function customerFacts(tenant: Tenant, customerId: string): Promise<{ facts: MessageFacts; paymentId: string | null }> {
  const [customer, payments, merchant] = await Promise.all([findCustomer(tenant, customerId), paymentsOfCustomer(tenant, customerId), findMerchant(tenant.merchantId)]);
  if (!customer) throw validationFailed(`Invalid customer_id: no such customer in ${tenant.environment} mode: '${customerId}'`, 'customer_id');
  const latest = payments.filter((payment) => isOpen(payment.status)).sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];
  return { facts: failureFacts(customer, latest, merchant?.payment_update_url ?? null), paymentId: latest?.id ?? null };
}

/** POST /v1/templates/{id}/preview: the message as a customer would get it, frame and footer included. */
export async function previewTemplate(tenant: Tenant, id: string, customerId: string | undefined, now: Date): Promise<Preview> {
  const [template, branding, source] = await Promise.all([
    templateOf(tenant, id),
    brandingOf(tenant),
    customerId === undefined ? { facts: sampleFacts(now), paymentId: null } : customerFacts(tenant, customerId),
  ]);
  const message = renderMessage(template, templateValues(source.facts, branding, now), branding);
  return { template, customerId: customerId ?? null, paymentId: source.paymentId, message, sms: message.channel === 'sms' ? smsLength(message.text) : null };
}

/** Test sends per environment per minute: enough to iterate on a template, too few to mail anyone in bulk. */
export const TEST_SENDS_PER_MINUTE = 10;

export interface TestSend {
  id: string;
  template: MessageTemplate;
  to: string;
  message: RenderedMessage;
  sentAt: string;
}

/** Why a channel could not take the test message, as the API's error (never a 500: the merchant can act on each). */
function sendRefused(error: unknown): ServiceError | undefined {
  if (error instanceof ChannelUnavailable) return stateConflict(`${error.message}; test sends need it too.`);
  if (error instanceof PermanentSendFailure) {
    return error.refusal === 'recipient_rejected'
      ? validationFailed(`Invalid to: the ${error.channel} provider refused this recipient (${error.code})`, 'to')
      : stateConflict(`The ${error.channel} provider refused this deployment's sender (${error.code}).`);
  }
  return undefined;
}

/**
 * POST /v1/templates/{id}/test-send: the preview, sent to `to` (an address for email templates, an
 * E.164 number for sms) with "[Test]" before the subject. Counted in a window of its own (429 past it).
 */
export async function sendTestMessage(
  ports: Pick<Ports, 'mailer' | 'smsSender'>,
  tenant: Tenant,
  id: string,
  request: { to: string; customerId?: string },
  now: Date,
): Promise<TestSend> {
  const preview = await previewTemplate(tenant, id, request.customerId, now);
  const channel = preview.message.channel;
  if (channel === 'email' && !request.to.includes('@')) throw validationFailed('Invalid to: an email template is sent to an email address', 'to');
  if (channel === 'sms' && !/^\+[1-9]\d{6,14}$/.test(request.to)) throw validationFailed('Invalid to: an sms template is sent to a phone number in E.164 form (+14155550123)', 'to');
  const admission = await admitRequest(testSendWindowPk(tenant), TEST_SENDS_PER_MINUTE, now.getTime());
  if (!admission.admitted) {
    throw new ServiceError('rate_limit_exceeded', `At most ${TEST_SENDS_PER_MINUTE} test sends a minute; retry after the seconds in retry_after.`, undefined, {
      retry_after: retryAfterSeconds(admission.counts, TEST_SENDS_PER_MINUTE, now.getTime()),
    });
  }
  const sendId = newId('tsd', now);
  const reference = `test-send#${sendId}`;
  const message: RenderedMessage = preview.message.channel === 'email' ? { ...preview.message, subject: `[Test] ${preview.message.subject}` } : preview.message;
  try {
    // Each test send is a message of its own; a repeated request is the Idempotency-Key's to answer.
    if (message.channel === 'email') await ports.mailer.send({ tenant, to: request.to, reference, idempotencyKey: reference, subject: message.subject, text: message.text, html: message.html });
    else await ports.smsSender.send({ tenant, to: request.to, reference, idempotencyKey: reference, body: message.text });
  } catch (error) {
    throw sendRefused(error) ?? error;
  }
  return { id: sendId, template: preview.template, to: request.to, message, sentAt: now.toISOString() };
}
