import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { log, withLogScope } from '../../shared/log.ts';
import type { LocalQueueMessage } from '../../shared/adapters/local/local-completion-queue.ts';
import { lambdaContext } from './lambda-event.ts';
import { localRuntime } from './local-runtime.ts';

type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** As the stack's redrive policy: a message that failed this many receives goes to the dead-letter queue. */
export const MAX_RECEIVES = 5;

export interface CompletionRun {
  delivered: number;
  failed: number;
  dead: number;
}

export function toRecord(message: LocalQueueMessage): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: message.messageId,
    receiptHandle: message.messageId,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: now,
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:cancel-completions',
    awsRegion: 'local',
  };
}

/**
 * Hands every waiting cancel completion to the worker once, as SQS and Lambda's event source mapping
 * (with ReportBatchItemFailures) would: reported failures wait for the next run, and after
 * MAX_RECEIVES receives move to the local dead letters (`localRuntime().completions.deadLetters()`).
 */
export async function drainCompletions(): Promise<CompletionRun> {
  const queue = localRuntime().completions;
  const run: CompletionRun = { delivered: 0, failed: 0, dead: 0 };
  const messages = queue.receive();
  if (messages.length === 0) return run;
  const { handler } = (await import(new URL('../../functions/workers/cancel-completions.ts', import.meta.url).href)) as { handler: QueueHandler };
  const result = await withLogScope(() => handler({ Records: messages.map(toRecord) }, lambdaContext('workers/cancel-completions')));
  const failed = new Set(result.batchItemFailures.map((failure) => failure.itemIdentifier));
  for (const message of messages) {
    if (!failed.has(message.messageId)) {
      run.delivered += 1;
      continue;
    }
    run.failed += 1;
    if (queue.release(message, MAX_RECEIVES) === 'dead') {
      run.dead += 1;
      log.error('cancel completion moved to the dead-letter queue after repeated failures', { message_id: message.messageId });
    }
  }
  return run;
}
