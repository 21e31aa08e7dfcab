/**
 * The local stand-in for the table's DynamoDB stream: event items written by committed transactions
 * wait here until the local server (or a test) hands them to the stream handler, as Lambda's event
 * source mapping would.
 */
export class LocalEventFeed {
  private pending: Record<string, unknown>[] = [];

  capture(items: readonly Record<string, unknown>[]): void {
    this.pending.push(...items);
  }

  take(): Record<string, unknown>[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}
