import type { Clock } from '../../ports/clock.ts';
import { PermanentSendFailure, type EmailMessage, type Mailer, type SentMessage, type SmsMessage, type SmsSender } from '../../ports/messaging.ts';
import type { LocalOutbox } from './outbox.ts';

/**
 * Recipients the local adapters refuse for good, as a provider refuses an invalid or opted-out
 * address, so a refused step can be tried without AWS (docs/testing.md, "Refused recipients"): email
 * at `reject.invalid` (RFC 2606 keeps `.invalid` from ever being a real domain), and sms to the top
 * hundred numbers of Ofcom's range for drama, +44 7700 900900 to 900999, never given to a line.
 */
const REFUSED_EMAIL = /@reject\.invalid$/i;
const REFUSED_PHONE_NUMBER = /^\+4477009009\d\d$/;

/**
 * Locally nothing leaves the machine: messages land in the outbox (GET /__dev/outbox), once per
 * idempotency key, as a provider that deduplicates sends would take them.
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly outbox: LocalOutbox,
    private readonly clock: Clock,
  ) {}

  async send(message: EmailMessage): Promise<SentMessage> {
    if (REFUSED_EMAIL.test(message.to)) throw new PermanentSendFailure('email', 'recipient_rejected', 'LocalOutbox/REFUSED_TEST_DOMAIN');
    return this.outbox.recordOnce(message.idempotencyKey, (messageId) => ({
      channel: 'email',
      to: message.to,
      at: this.clock.now().toISOString(),
      content: { message_id: messageId, merchant_id: message.tenant.merchantId, subject: message.subject, text: message.text, html: message.html, reference: message.reference },
    }));
  }
}

export class OutboxSmsSender implements SmsSender {
  constructor(
    private readonly outbox: LocalOutbox,
    private readonly clock: Clock,
  ) {}

  async send(message: SmsMessage): Promise<SentMessage> {
    if (REFUSED_PHONE_NUMBER.test(message.to)) throw new PermanentSendFailure('sms', 'recipient_rejected', 'LocalOutbox/REFUSED_TEST_RANGE');
    return this.outbox.recordOnce(message.idempotencyKey, (messageId) => ({
      channel: 'sms',
      to: message.to,
      at: this.clock.now().toISOString(),
      content: { message_id: messageId, merchant_id: message.tenant.merchantId, body: message.body, reference: message.reference },
    }));
  }
}
