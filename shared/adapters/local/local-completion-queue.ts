import { randomUUID } from 'node:crypto';
import type { CompletionQueue } from '../../ports/completion-queue.ts';
import type { CancelCompletion } from '../../model/cancel-session-schema.ts';

/** A message as SQS would hand it to the worker: an id, the body, and how often it was received. */
export interface LocalQueueMessage {
  messageId: string;
  body: string;
  receiveCount: number;
}

/**
 * The local stand-in for the cancel-completions SQS queue and its dead-letter queue, in process:
 * the local server's timer (or a test, through bin/local/completion-runner.ts) hands waiting messages
 * to the worker, puts failed ones back, and moves a message to `deadLetters` after as many receives
 * as the AWS redrive policy allows.
 */
export class LocalCompletionQueue implements CompletionQueue {
  private waiting: LocalQueueMessage[] = [];
  private readonly dead: LocalQueueMessage[] = [];

  async enqueue(completion: CancelCompletion): Promise<void> {
    this.waiting.push({ messageId: randomUUID(), body: JSON.stringify(completion), receiveCount: 0 });
  }

  /** Every waiting message, each counted as received once more. */
  receive(): LocalQueueMessage[] {
    const taken = this.waiting.map((message) => ({ ...message, receiveCount: message.receiveCount + 1 }));
    this.waiting = [];
    return taken;
  }

  /** A failed message goes back to wait, or to the dead letters once it was received `maxReceives` times. */
  release(message: LocalQueueMessage, maxReceives: number): 'requeued' | 'dead' {
    if (message.receiveCount >= maxReceives) {
      this.dead.push(message);
      return 'dead';
    }
    this.waiting.push(message);
    return 'requeued';
  }

  pending(): readonly LocalQueueMessage[] {
    return this.waiting;
  }

  deadLetters(): readonly LocalQueueMessage[] {
    return this.dead;
  }

  /** Moves the dead letters back to wait, received afresh, as an SQS redrive to the source queue does; how many. */
  redrive(): number {
    const moved = this.dead.splice(0).map((message) => ({ ...message, receiveCount: 0 }));
    this.waiting.push(...moved);
    return moved.length;
  }
}
