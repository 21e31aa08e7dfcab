type Item = Record<string, unknown>;

/** Whether an event item is in the table: a transaction whose answer was lost may or may not have stored it. */
export type StoredCheck = (item: Item) => Promise<boolean>;

/**
 * The local stand-in for the table's DynamoDB stream: event items written by committed transactions
 * wait here until the local server (or a test) hands them to the stream handler, as Lambda's event
 * source mapping would. The stream carries what the table stored, whether or not the writer heard
 * back: events of a transaction whose answer was lost are looked up before they are handed on, and
 * dropped only if the table does not have them.
 */
export class LocalEventFeed {
  private pending: { item: Item; inDoubt: boolean }[] = [];
  private dead: Item[] = [];

  constructor(private readonly stored: StoredCheck) {}

  capture(items: readonly Item[]): void {
    this.pending.push(...items.map((item) => ({ item, inDoubt: false })));
  }

  captureInDoubt(items: readonly Item[]): void {
    this.pending.push(...items.map((item) => ({ item, inDoubt: true })));
  }

  /**
   * Records a batch failed on, from the failed one: handed on again before anything stored since, as a
   * stream shard delivers again from the failed record and holds the later ones back (a consumer that
   * saw a payment's recovery before its failure would decide on the wrong order).
   */
  redeliver(items: readonly Item[]): void {
    this.pending.unshift(...items.map((item) => ({ item, inDoubt: false })));
  }

  /** An event its consumers failed on every delivery, kept as the stream's dead-letter destination would note it. */
  setAside(item: Item): void {
    this.dead.push(item);
  }

  deadLetters(): readonly Item[] {
    return this.dead;
  }

  /** Hands the set-aside events on again, after those waiting, as an operator replays them from the stream once the cause is fixed; how many. */
  redrive(): number {
    const moved = this.dead;
    this.dead = [];
    this.capture(moved);
    return moved.length;
  }

  /** The events stored so far, in order; a lookup that fails keeps that event and those after it for the next take. */
  async take(): Promise<Item[]> {
    const taken: Item[] = [];
    while (this.pending.length > 0) {
      const { item, inDoubt } = this.pending[0]!;
      if (inDoubt) {
        try {
          if (await this.stored(item)) taken.push(item);
        } catch {
          break;
        }
      } else taken.push(item);
      this.pending.shift();
    }
    return taken;
  }
}
