import { randomUUID } from 'node:crypto';

/**
 * What the local adapters would have sent to the outside world (emails, sms, webhook deliveries,
 * changes to subscriptions at a processor such as an accepted cancel-flow offer),
 * kept in order so a developer or a test can see it at GET /__dev/outbox.
 */
export interface OutboxEntry {
  channel: 'email' | 'sms' | 'webhook' | 'processor';
  to: string;
  at: string;
  content: Record<string, unknown>;
}

export class LocalOutbox {
  private readonly sent: OutboxEntry[] = [];
  /** Message ids by idempotency key: a message sent again under its key is the one already sent. */
  private readonly keys = new Map<string, string>();

  record(entry: OutboxEntry): void {
    this.sent.push(entry);
  }

  /** Records the message `entry` builds (given its new id) unless one was recorded under `key`; the message's id either way. */
  recordOnce(key: string, entry: (messageId: string) => OutboxEntry): { messageId: string } {
    const known = this.keys.get(key);
    if (known) return { messageId: known };
    const messageId = `local-${randomUUID()}`;
    this.keys.set(key, messageId);
    this.record(entry(messageId));
    return { messageId };
  }

  entries(): readonly OutboxEntry[] {
    return this.sent;
  }
}
