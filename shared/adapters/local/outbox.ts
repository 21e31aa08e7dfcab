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

  record(entry: OutboxEntry): void {
    this.sent.push(entry);
  }

  entries(): readonly OutboxEntry[] {
    return this.sent;
  }
}
