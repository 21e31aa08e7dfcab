import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { queryAll, type Item } from './dynamo.ts';
import { tenantPartitions } from './keys.ts';

const { db, tableName } = runtime;

/**
 * Reads of runs spread over several partitions (a tenant's shards, keys.ts) as if they were one:
 * every partition queried side by side, the results in sort-key order.
 */

/** DynamoDB orders string keys by their UTF-8 bytes; in-memory sorts of keys must agree. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** `input` (its partition named `:pk`) in one partition. */
const inPartition = (input: QueryCommandInput, partition: string): QueryCommandInput => ({
  ...input,
  ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':pk': partition },
});

/** Every item the query matches in each partition, in the query's sort-key order. */
export async function queryEach(partitions: readonly string[], input: QueryCommandInput, sortKey = 'sk'): Promise<Item[]> {
  const found = await Promise.all(partitions.map((partition) => queryAll(db, inPartition(input, partition))));
  if (found.length === 1) return found[0]!;
  const direction = input.ScanIndexForward === false ? -1 : 1;
  return found.flat().sort((a, b) => direction * compareKeys(String(a[sortKey]), String(b[sortKey])));
}

/**
 * Every item of a tenant whose sort key starts with `prefix`, or lies in `range` (whose bounds share
 * the prefix that places it), from each partition that can hold it; `extra` adds to the Query
 * (direction, consistency, projection, filter).
 */
export function queryTenant(
  tenant: Tenant,
  range: { prefix: string } | { prefix: string; lower: string; upper: string },
  extra: Omit<Partial<QueryCommandInput>, 'KeyConditionExpression'> = {},
): Promise<Item[]> {
  const bounded = 'lower' in range;
  const values: Record<string, unknown> = bounded ? { ':lower': range.lower, ':upper': range.upper } : range.prefix === '' ? {} : { ':prefix': range.prefix };
  const condition = bounded ? 'pk = :pk AND sk BETWEEN :lower AND :upper' : range.prefix === '' ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)';
  return queryEach(tenantPartitions(tenant, range.prefix), {
    TableName: tableName,
    ...extra,
    KeyConditionExpression: condition,
    ExpressionAttributeValues: { ...extra.ExpressionAttributeValues, ...values },
  });
}

/** Where a merged read continues in each partition: after this key, from the start (undefined), or nowhere (null: read out). */
export type MergeStart = Record<string, unknown> | undefined | null;

/** An ordered run: one Query per partition (complete but for paging) and the attribute they are ordered by. */
export interface MergedRun {
  queries: readonly QueryCommandInput[];
  sortKey: string;
  /** The attributes of an ExclusiveStartKey (the table's keys, and the index's). */
  keyAttributes: readonly string[];
}

interface Lane {
  query: QueryCommandInput;
  buffer: Item[];
  startKey: Record<string, unknown> | undefined;
  done: boolean;
  read: boolean;
  /** The sort key of the last entry the partition examined: nothing it holds beyond comes before it. */
  frontier?: string;
  lastTaken?: Record<string, unknown>;
  from: MergeStart;
}

/**
 * Up to `count` matches of a run in sort-key order, and where each partition stands after the last
 * one returned. Each partition is read in chunks of about its share of what is still wanted
 * (`chunk(remaining, partitions)`), side by side, and read again only when the next entry could be
 * its own: so what is read stays near `count`, not `count` times the partitions. One partition
 * reads exactly as a single Query paged by `chunk`.
 */
export async function readMerged(
  run: MergedRun,
  forward: boolean,
  count: number,
  start: readonly MergeStart[],
  chunk: (remaining: number, partitions: number) => number,
): Promise<{ entries: Item[]; next: MergeStart[] }> {
  const direction = forward ? 1 : -1;
  const lanes: Lane[] = run.queries.map((query, i) => ({
    query: { ...query, ScanIndexForward: forward },
    buffer: [],
    startKey: start[i] ?? undefined,
    done: start[i] === null,
    read: false,
    from: start[i],
  }));
  const before = (a: string, b: string) => direction * compareKeys(a, b) < 0;
  const entries: Item[] = [];
  while (entries.length < count) {
    let head: Lane | undefined;
    for (const lane of lanes) {
      if (lane.buffer.length > 0 && (!head || before(String(lane.buffer[0]![run.sortKey]), String(head.buffer[0]![run.sortKey])))) head = lane;
    }
    const candidate = head && String(head.buffer[0]![run.sortKey]);
    const unsure = lanes.filter(
      (lane) => !lane.done && lane.buffer.length === 0 && (!lane.read || candidate === undefined || !before(candidate, lane.frontier!)),
    );
    if (unsure.length > 0) {
      const limit = chunk(count - entries.length, lanes.length);
      await Promise.all(unsure.map((lane) => readChunk(lane, limit, run.sortKey)));
      continue;
    }
    if (!head) break;
    const entry = head.buffer.shift()!;
    head.lastTaken = Object.fromEntries(run.keyAttributes.map((name) => [name, entry[name]]));
    entries.push(entry);
  }
  const next = lanes.map((lane): MergeStart => {
    if (lane.buffer.length === 0) return lane.done ? null : lane.startKey;
    return lane.lastTaken ?? lane.from;
  });
  return { entries, next };
}

async function readChunk(lane: Lane, limit: number, sortKey: string): Promise<void> {
  const page = await db.send(new QueryCommand({ ...lane.query, Limit: limit, ExclusiveStartKey: lane.startKey }));
  lane.buffer.push(...(page.Items ?? []));
  lane.startKey = page.LastEvaluatedKey;
  lane.done = !page.LastEvaluatedKey;
  lane.frontier = page.LastEvaluatedKey?.[sortKey] as string | undefined;
  lane.read = true;
}
