import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { log, withLogScope } from '../../shared/log.ts';
import { lambdaContext } from './lambda-event.ts';
import { inLanes, lanesOf, LOCAL_CONCURRENCY } from './lanes.ts';
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

type Item = Record<string, unknown>;

/**
 * The customer an event item is about (its lane when batches go side by side): a customer's events
 * keep their order, as the table's stream keeps a partition's; events about no customer share a lane.
 */
function customerOf(item: Item): string {
  const data = (item.data ?? {}) as Record<string, unknown>;
  const customer = data.customer_id ?? (String(item.type).startsWith('customer.') ? data.id : undefined) ?? data.external_customer_id;
  return typeof customer === 'string' ? customer : '';
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
 * in the stream's dead-letter queue. With LOCAL_CONCURRENCY above 1, each customer's events are a
 * batch of their own, handed on side by side as a stream's shards are.
 */
export async function drainEvents(): Promise<EventRun> {
  const feed = localRuntime().events;
  const { handler } = (await import(new URL('../../functions/streams/events.ts', import.meta.url).href)) as { handler: StreamHandler };
  const run: EventRun = { events: 0, failed: 0 };
  // A batch's records from the one its consumer failed on: delivered again, or set aside after the last try.
  const deliver = async (items: Item[]): Promise<Item[]> => {
    const records = items.map(toRecord);
    const result = await withLogScope(() => handler({ Records: records }, lambdaContext('streams/events')));
    const failure = result.batchItemFailures[0]?.itemIdentifier;
    const failedAt = failure === undefined ? -1 : records.findIndex((record) => record.dynamodb?.SequenceNumber === failure);
    run.events += failedAt === -1 ? items.length : failedAt;
    if (failedAt === -1) return [];
    const retry = items.slice(failedAt);
    const id = String(retry[0]!.id);
    const count = (deliveries.get(id) ?? 0) + 1;
    deliveries.set(id, count);
    if (count >= MAX_DELIVERIES) {
      log.error('event set aside after repeated consumer failures (the stream DLQ in AWS)', { event_id: id });
      run.failed += 1;
      feed.setAside(retry.shift()!);
    }
    return retry;
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const items = await feed.take();
    if (items.length === 0) break;
    const batches = LOCAL_CONCURRENCY > 1 ? lanesOf(items, customerOf) : [items];
    const again = new Set<Item>();
    await inLanes(batches, (batch) => customerOf(batch[0]!), LOCAL_CONCURRENCY, async (batch) => {
      for (const item of await deliver(batch)) again.add(item);
    });
    feed.redeliver(items.filter((item) => again.has(item)));
  }
  return run;
}
