import { SQSClient } from '@aws-sdk/client-sqs';
import { runtime } from '../composition.ts';
import { requireEnv } from '../config.ts';
import type { CompletionQueue } from '../ports/completion-queue.ts';
import { SqsCompletionQueue } from './aws/sqs-completion-queue.ts';

/** The completion queue for this runtime; in AWS its URL is read at cold start of the functions that import it. */
export const completionQueue: CompletionQueue =
  runtime.local?.completions ?? new SqsCompletionQueue(new SQSClient({}), requireEnv('CANCEL_COMPLETION_QUEUE_URL'));
