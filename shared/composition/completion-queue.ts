import { serviceClientSettings } from '../aws-clients.ts';
import { SQSClient } from '@aws-sdk/client-sqs';
import { adapterFor } from './adapters.ts';
import { requireEnv } from '../config.ts';
import type { CompletionQueue } from '../ports/completion-queue.ts';
import { SqsCompletionQueue } from '../adapters/aws/sqs-completion-queue.ts';
import { builtOnFirstUse } from '../adapters/built-on-first-use.ts';

/** The SQS queue, its URL read at cold start of the functions that import it; its client is built on the first send (only a completion that could not be stored is sent). */
function sqsCompletionQueue(): CompletionQueue {
  const queueUrl = requireEnv('CANCEL_COMPLETION_QUEUE_URL');
  return builtOnFirstUse(() => new SqsCompletionQueue(new SQSClient(serviceClientSettings()), queueUrl));
}

/** The completion queue for this runtime. */
export const completionQueue: CompletionQueue = adapterFor('completionQueue', sqsCompletionQueue);
