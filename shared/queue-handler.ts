import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describeError, log, setLogContext } from './log.ts';

/**
 * An SQS-triggered worker (event source mapping with ReportBatchItemFailures): each record is
 * processed on its own, and only the records that failed are reported, so SQS delivers those again
 * (and after the queue's redrive count moves them to its dead-letter queue) without repeating the rest.
 */
export function queueHandler(name: string, process: (record: SQSRecord) => Promise<unknown>) {
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      setLogContext({
        request_id: context?.awsRequestId,
        route: `queue ${name}`,
        message_id: record.messageId,
        receive_count: record.attributes?.ApproximateReceiveCount,
      });
      try {
        await process(record);
      } catch (error) {
        log.error('queue message failed; it will be delivered again', describeError(error));
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
