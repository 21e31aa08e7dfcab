import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { log, withLogScope } from '../../shared/log.ts';
import { lambdaContext } from './lambda-event.ts';
import { localRuntime } from './local-runtime.ts';

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/** As the stack's event source mapping (lib/event-stream.ts): the first delivery and ten retries. */
const MAX_DELIVERIES = 11;
/** Batches per run: enough for every record to be delivered eleven times, bounded so a consumer writing events for its own events cannot spin forever. */
const MAX_ROUNDS = 1_000;
const deliveries = new Map<string, number>();
let sequence = 0;

export function toRecord(item: Record<string, unknown>): DynamoDBRecord {
  sequence += 1;
  return {
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
      NewImage: marshall(item, { removeUndefinedValues: true }) as never,
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

export interface EventRun {
  events: number;
  failed: number;
}

/**
 * Hands the events committed so far to the stream handler, as the table's stream and Lambda's event
 * source mapping do in AWS, until none are left (consumers may write events of their own). A record
 * the handler reports failed is delivered again at once, before the records after it (as the mapping
 * retries a failed batch from that record, seconds later, not at the next run), eleven deliveries in
 * all, then set aside with an error (`localRuntime().events.deadLetters()`), where AWS would note it
 * in the stream's dead-letter queue.
 */
export async function drainEvents(): Promise<EventRun> {
  const feed = localRuntime().events;
  const { handler } = (await import(new URL('../../functions/streams/events.ts', import.meta.url).href)) as { handler: StreamHandler };
  const run: EventRun = { events: 0, failed: 0 };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const items = await feed.take();
    if (items.length === 0) break;
    const records = items.map(toRecord);
    const result = await withLogScope(() => handler({ Records: records }, lambdaContext('streams/events')));
    const failure = result.batchItemFailures[0]?.itemIdentifier;
    const failedAt = failure === undefined ? -1 : records.findIndex((record) => record.dynamodb?.SequenceNumber === failure);
    run.events += failedAt === -1 ? items.length : failedAt;
    if (failedAt === -1) continue;
    const retry = items.slice(failedAt);
    const id = String(retry[0]!.id);
    const count = (deliveries.get(id) ?? 0) + 1;
    deliveries.set(id, count);
    if (count >= MAX_DELIVERIES) {
      log.error('event set aside after repeated consumer failures (the stream DLQ in AWS)', { event_id: id });
      run.failed += 1;
      feed.setAside(retry.shift()!);
    }
    feed.redeliver(retry);
  }
  return run;
}
