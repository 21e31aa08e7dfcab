import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsCompletionQueue } from '../../shared/adapters/aws/sqs-completion-queue.ts';
import { newCancelFlow } from '../../shared/model/cancel-flow.ts';
import { cancelCompletionSchema } from '../../shared/model/cancel-session-schema.ts';
import { completionOf, hashToken, newSession } from '../../shared/domain/cancel-flows/cancel-sessions.ts';

const NOW = new Date('2026-12-01T10:00:00.000Z');
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/PaymentRecovery-prod-CancelCompletions';

function completion() {
  const flow = { ...newCancelFlow('cfl_1', { name: 'F', steps: [{ step_type: 'confirm', config: {} }], allowed_origins: [] }, NOW), status: 'active' as const };
  const session = newSession('cfs_1', { merchantId: 'mer_1', environment: 'live', customerId: 'cus_x', subscriptionId: 'sub_x' }, flow, NOW);
  return completionOf(hashToken('00000000-0000-4000-8000-000000000000'), session, { outcome: 'churned', reason: 'price', free_text: 'too much' }, NOW);
}

describe('SqsCompletionQueue', () => {
  const sqs = mockClient(SQSClient);

  afterEach(() => {
    sqs.reset();
  });

  it('sends the whole completion as one SendMessage to the configured queue', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const queue = new SqsCompletionQueue(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL);
    const queued = completion();
    // Act
    await queue.enqueue(queued);
    // Assess
    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageBody: JSON.stringify(queued),
      MessageAttributes: {
        kind: { DataType: 'String', StringValue: 'cancel-completion' },
        session_id: { DataType: 'String', StringValue: 'cfs_1' },
      },
    });
    // What the worker parses back is the completion that was sent.
    expect(cancelCompletionSchema.parse(JSON.parse(calls[0]!.args[0].input.MessageBody!))).toEqual(queued);
  });

  it('lets a failed send fail the enqueue, so the session is not consumed', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('AWS.SimpleQueueService.NonExistentQueue'));
    const queue = new SqsCompletionQueue(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL);
    await expect(queue.enqueue(completion())).rejects.toThrow('NonExistentQueue');
  });
});
