import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { CompletionQueue } from '../../ports/completion-queue.ts';
import type { CancelCompletion } from '../../model/cancel-session-schema.ts';

/**
 * Completions that could not be stored, sent to the cancel-completions SQS queue. The body is the
 * whole completion (session, outcome, feedback), since the session item is gone by the time the
 * worker reads it; bounded by the session limits to well under SQS's message size.
 */
export class SqsCompletionQueue implements CompletionQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(completion: CancelCompletion): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(completion),
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: completion.kind },
          session_id: { DataType: 'String', StringValue: completion.session.session_id },
        },
      }),
    );
  }
}
