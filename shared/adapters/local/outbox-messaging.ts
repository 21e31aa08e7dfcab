import { randomUUID } from 'node:crypto';
import type { Clock } from '../../ports/clock.ts';
import type { EmailMessage, Mailer, SentMessage, SmsMessage, SmsSender } from '../../ports/messaging.ts';
import type { LocalOutbox } from './outbox.ts';

/** Locally nothing leaves the machine: messages land in the outbox (GET /__dev/outbox). */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly outbox: LocalOutbox,
    private readonly clock: Clock,
  ) {}

  async send(message: EmailMessage): Promise<SentMessage> {
    const messageId = `local-${randomUUID()}`;
    this.outbox.record({
      channel: 'email',
      to: message.to,
      at: this.clock.now().toISOString(),
      content: { message_id: messageId, merchant_id: message.tenant.merchantId, subject: message.subject, text: message.text, html: message.html, reference: message.reference },
    });
    return { messageId };
  }
}

export class OutboxSmsSender implements SmsSender {
  constructor(
    private readonly outbox: LocalOutbox,
    private readonly clock: Clock,
  ) {}

  async send(message: SmsMessage): Promise<SentMessage> {
    const messageId = `local-${randomUUID()}`;
    this.outbox.record({
      channel: 'sms',
      to: message.to,
      at: this.clock.now().toISOString(),
      content: { message_id: messageId, merchant_id: message.tenant.merchantId, body: message.body, reference: message.reference },
    });
    return { messageId };
  }
}
