import { BatchGetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { TimeWindow } from '../model/listing.ts';
import { idTimePart } from '../ids.ts';
import { countedAs, DAY_LEAF, type Bucket, type CounterView } from './list-counters.ts';
import { compareKeys, queryEach, readMerged, type MergedRun, type MergeStart } from './shard-reads.ts';
import { GLOBAL_INDEXES, TABLE_KEYS, type GlobalIndexName } from './table-schema.ts';

export { compareKeys };

const { db, tableName } = runtime;

/**
 * The list engine the entity stores plan onto. A segment is one sorted run of items: a partition of
 * the table or of an index, a sort-key range, and the predicates no key can express (a filter). A list
 * is one segment, or several read one after another (payments sorted by status).
 *
 * Every request asks for its consumed capacity, so the bench (and logs) can see the cost of a query.
 */

/** Inclusive sort-key bounds of a run of entries. */
export interface KeyRange {
  lower: string;
  upper: string;
}

/** A bucket of a list holding an offset: its sort-key bounds, its size, and how many of its entries come before the offset. */
export interface Landing {
  bounds: KeyRange;
  count: number;
  remaining: number;
}

/** Counts of a creation-ordered list by month, day and part of a day (list counters, a search prefix's month items). */
export type BucketCounts = Pick<CounterView, 'allTime' | 'buckets' | 'splitMonth' | 'splitsDays' | 'splitDay'>;

/** A condition on attributes the segment's entries carry (narrow indexes project what filters test). */
export interface Filter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

export interface Segment {
  index?: GlobalIndexName;
  /** One partition, or the partitions one run is spread over (a tenant's shards), read as one in key order. */
  partition: string | readonly string[];
  /** Inclusive sort-key bounds; either may be open. */
  lower?: string;
  upper?: string;
  /** Sort keys all start with this (used when a bound is open). */
  prefix: string;
  filter?: Filter;
  /** Entries do not hold whole items: a page is fetched from the table by key. */
  narrow: boolean;
  /** For segments ordered by creation time: the sort-key bounds of a time window. */
  timeBounds?: (window: TimeWindow) => { lower: string; upper: string };
  /** Counters that count exactly this segment's entries (after its filter), per creation day. */
  counted?: { view: BucketCounts; dimension: string };
  /** A count kept of exactly this segment's entries (after its filter), for segments without a time window. */
  kept?: () => Promise<number>;
  /** Rank counters of exactly this segment's entries (a value order, unfiltered): its total and where a deep page starts. */
  ranked?: { total(): Promise<number>; landing(offset: number, forward: boolean): Promise<Landing | undefined> };
  /**
   * Entries read per match of the filter, from counters (the partition's count over the list's): how
   * far a filtered read looks ahead; infinite when the counters show no match, so nothing is read.
   * Unknown, a filtered read looks ahead at least 100 entries.
   */
  sparsity?: number;
  /** The key of the item a narrow entry stands for, when it is not the entry's own table key (search entries). */
  itemKey?: (entry: Record<string, unknown>) => { pk: string; sk: string };
}

/** Sort-key bounds of ids created in a window, for sort keys `<prefix><id>` and ids `<idPrefix>_<time>…`. */
export function idTimeBounds(prefix: string, idPrefix: string): (window: TimeWindow) => { lower: string; upper: string } {
  return (window) => ({
    lower: `${prefix}${idPrefix}_${window.from === undefined ? '' : idTimePart(window.from)}`,
    upper: `${prefix}${idPrefix}_${window.to === undefined ? '' : idTimePart(window.to - 1)}~`,
  });
}

/** Zero-padded so amounts sort as numbers in a string key (16 digits covers any safe integer). */
export const amountKey = (amount: number): string => String(Math.max(0, Math.trunc(amount))).padStart(16, '0');

/** Sort-key text: lowercase, bounded (keys stop at 1 KB), and a separator below every printable character so "Ada" sorts before "Ada Lovelace". */
export const textKey = (value: string | null, id: string): string => `${(value ?? '').toLowerCase().slice(0, 200)}\u0001${id}`;

/** Combines predicates into one filter; placeholders are numbered so they never collide. */
export function allOf(...parts: (Filter | undefined)[]): Filter | undefined {
  const present = parts.filter((part): part is Filter => part !== undefined);
  if (present.length === 0) return undefined;
  // DynamoDB refuses doubled parentheses, which combining a combination would make.
  if (present.length === 1) return present[0];
  return {
    expression: present.map((part) => `(${part.expression})`).join(' AND '),
    names: Object.assign({}, ...present.map((part) => part.names)),
    values: Object.assign({}, ...present.map((part) => part.values)),
  };
}

let placeholder = 0;
/** attribute = value */
export function equals(attribute: string, value: unknown): Filter {
  const n = ++placeholder % 1_000_000;
  return { expression: `#f${n} = :f${n}`, names: { [`#f${n}`]: attribute }, values: { [`:f${n}`]: value } };
}
/** low ≤ attribute ≤ high, either bound optional. */
export function between(attribute: string, low: unknown, high: unknown): Filter | undefined {
  if (low === undefined && high === undefined) return undefined;
  const n = ++placeholder % 1_000_000;
  const names = { [`#f${n}`]: attribute };
  if (low !== undefined && high !== undefined) {
    return { expression: `#f${n} BETWEEN :lo${n} AND :hi${n}`, names, values: { [`:lo${n}`]: low, [`:hi${n}`]: high } };
  }
  return low !== undefined
    ? { expression: `#f${n} >= :lo${n}`, names, values: { [`:lo${n}`]: low } }
    : { expression: `#f${n} <= :hi${n}`, names, values: { [`:hi${n}`]: high } };
}
export function raw(expression: string, names: Record<string, string>, values: Record<string, unknown>): Filter {
  return { expression, names, values };
}

function keyNames(segment: Segment): { partition: string; sort: string } {
  if (!segment.index) return { partition: TABLE_KEYS.partition, sort: TABLE_KEYS.sort };
  const index = GLOBAL_INDEXES.find((candidate) => candidate.name === segment.index)!;
  return { partition: index.partition, sort: index.sort };
}

interface Bounds {
  lower?: string;
  upper?: string;
}

const partitionsOf = (segment: Segment): readonly string[] => (typeof segment.partition === 'string' ? [segment.partition] : segment.partition);

/** The segment's query within bounds; its partition is `:pk`, bound per partition by the readers. */
function queryInput(segment: Segment, bounds: Bounds, forward: boolean): QueryCommandInput {
  const keys = keyNames(segment);
  const names: Record<string, string> = { '#pk': keys.partition, ...segment.filter?.names };
  const values: Record<string, unknown> = { ...segment.filter?.values };
  const lower = bounds.lower ?? segment.lower;
  const upper = bounds.upper ?? segment.upper;
  let condition = '#pk = :pk';
  if (lower !== undefined || upper !== undefined) {
    names['#sk'] = keys.sort;
    if (segment.prefix === '' && (lower === undefined || upper === undefined)) {
      // The whole partition is this list's: one bound is enough (and key values may not be empty).
      values[lower === undefined ? ':upper' : ':lower'] = lower ?? upper;
      condition += lower === undefined ? ' AND #sk <= :upper' : ' AND #sk >= :lower';
    } else {
      values[':lower'] = lower ?? segment.prefix;
      values[':upper'] = upper ?? `${segment.prefix}\u{10FFFF}`;
      condition += ' AND #sk BETWEEN :lower AND :upper';
    }
  } else if (segment.prefix !== '') {
    values[':prefix'] = segment.prefix;
    names['#sk'] = keys.sort;
    condition += ' AND begins_with(#sk, :prefix)';
  }
  return {
    TableName: tableName,
    IndexName: segment.index,
    KeyConditionExpression: condition,
    FilterExpression: segment.filter?.expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: forward,
  };
}

/** The intersection of the segment's own bounds and a time window (segments ordered by creation time). */
function windowBounds(segment: Segment, window: TimeWindow): Required<Bounds> {
  const timed = segment.timeBounds!(window);
  return {
    lower: segment.lower === undefined || timed.lower > segment.lower ? timed.lower : segment.lower,
    upper: segment.upper === undefined || timed.upper < segment.upper ? timed.upper : segment.upper,
  };
}

/** How many entries of the segment (within bounds) match its filter: reads them all, returning only a number. */
export async function countEntries(segment: Segment, bounds: Bounds = {}): Promise<number> {
  const input = queryInput(segment, bounds, true);
  const counts = await Promise.all(
    partitionsOf(segment).map(async (partition) => {
      let count = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({ ...input, ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':pk': partition }, Select: 'COUNT', ExclusiveStartKey: startKey }),
        );
        count += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return count;
    }),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}

/** The segment's total, from counters when they count exactly this segment, else by reading its entries. */
export async function segmentTotal(segment: Segment, window: TimeWindow): Promise<number> {
  if (segment.ranked) return segment.ranked.total();
  if (segment.kept) return segment.kept();
  if (segment.counted && !segment.timeBounds) return segment.counted.view.allTime(segment.counted.dimension);
  if (segment.counted) {
    const buckets = await bucketsOf(segment, window);
    return buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  }
  return countEntries(segment, segment.timeBounds ? windowBounds(segment, window) : {});
}

function bucketsOf(segment: Segment, window: TimeWindow): Promise<Bucket[]> {
  const { view, dimension } = segment.counted!;
  return view.buckets(dimension, window, (from, to) => countEntries(segment, windowBounds(segment, { from, to })));
}

/** The segment within bounds as a run over its partitions, optionally reading only the keys. */
function runOf(segment: Segment, bounds: Bounds, forward: boolean, keysOnly: boolean): MergedRun {
  const keys = keyNames(segment);
  const keyAttributes = [...new Set([TABLE_KEYS.partition, TABLE_KEYS.sort, ...Object.values(keys)])];
  const input = queryInput(segment, bounds, forward);
  const projectionNames = Object.fromEntries(keyAttributes.map((name, i) => [`#key${i}`, name]));
  const query: QueryCommandInput = keysOnly
    ? { ...input, ProjectionExpression: Object.keys(projectionNames).join(', '), ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...projectionNames } }
    : input;
  return {
    queries: partitionsOf(segment).map((partition) => ({ ...query, ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pk': partition } })),
    sortKey: keys.sort,
    keyAttributes,
  };
}

/**
 * A partition's share of what is still wanted, with a margin of about one standard deviation of a
 * share (so one read round usually suffices, and a second reads only what is still missing); all of
 * it when there is one partition (asking for exactly the number still to skip makes DynamoDB stop on
 * the last skipped entry, filters or not).
 */
const share = (remaining: number, partitions: number) =>
  partitions === 1 ? remaining : Math.ceil(remaining / partitions) + Math.ceil(Math.sqrt(remaining) / 2) + 1;

/**
 * Entries to read for `wanted` matches when one entry in `sparsity` matches: the expected number and
 * half a standard deviation more (of the entries needed: wanted successes at rate 1 / sparsity), so
 * one read mostly suffices and a second reads only the few still missing (docs/data-model.md, "Cost
 * per query": a counted pair reads about n × its sparsity).
 */
export function lookAhead(wanted: number, sparsity: number): number {
  const rate = 1 / Math.max(1, sparsity);
  const deviation = Math.sqrt(wanted * (1 - rate)) / rate;
  return Math.ceil(wanted / rate + deviation / 2);
}

/**
 * Up to this many entries are skipped in the same merged read as the page. A skip is billed for whole
 * items whether or not it projects keys, and a separate skip would read past the skip point on every
 * partition and again from there; longer skips read keys only, to keep what crosses the wire small.
 */
const MERGED_SKIP_LIMIT = 200;

/**
 * Moves past `skip` matching entries from the start of `bounds`, reading only keys, and returns where
 * each partition continues; `null` when the run ends first.
 */
async function skipEntries(segment: Segment, bounds: Bounds, forward: boolean, skip: number): Promise<MergeStart[] | null> {
  const start = partitionsOf(segment).map(() => undefined);
  const { entries, next } = await readMerged(runOf(segment, bounds, forward, true), forward, skip, start, share);
  return entries.length < skip ? null : next;
}

/** Up to `take` matching entries from where each partition continues. */
async function takeEntries(segment: Segment, bounds: Bounds, forward: boolean, start: readonly MergeStart[] | undefined, take: number) {
  // With a filter, read ahead: matches are a fraction of what is read.
  const ahead = (remaining: number, partitions: number) => {
    if (!segment.filter) return share(remaining, partitions);
    if (segment.sparsity === undefined) return Math.max(share(remaining, partitions), Math.ceil(100 / partitions));
    return share(lookAhead(remaining, segment.sparsity), partitions);
  };
  const from = start ?? partitionsOf(segment).map(() => undefined);
  return (await readMerged(runOf(segment, bounds, forward, false), forward, take, from, ahead)).entries;
}

/** Whole items for entries of a narrow index, in the entries' order. */
export async function fetchItems(keys: readonly { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  if (keys.length === 0) return [];
  const found = new Map<string, Record<string, unknown>>();
  let pending: Record<string, unknown>[] = keys.map(({ pk, sk }) => ({ pk, sk }));
  for (let round = 0; pending.length > 0 && round < 8; round++) {
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** round));
    const response = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending } } }));
    for (const item of response.Responses?.[tableName] ?? []) found.set(`${item.pk}\n${item.sk}`, item);
    pending = (response.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  if (pending.length > 0) throw new Error(`BatchGet left ${pending.length} keys unprocessed`);
  // An entry whose item vanished since the index was read (deleted a moment ago) is left out.
  return keys.flatMap(({ pk, sk }) => {
    const item = found.get(`${pk}\n${sk}`);
    return item ? [item] : [];
  });
}

/**
 * One page of a segment: skips `skip` matches and returns the next `take` whole items. `total` (the
 * segment's exact match count) lets a page in the back half be read from the other end, so a skip
 * never passes more than half of what it is skipping in. When counters count the segment, the skip
 * first jumps over whole buckets by their counts (months and days in creation order, value classes,
 * values and days in a ranked order) and only reads keys inside the bucket the page starts in (again
 * from its nearer end).
 */
export async function readSegmentPage(
  segment: Segment,
  window: TimeWindow,
  forward: boolean,
  skip: number,
  take: number,
  total: number,
): Promise<Record<string, unknown>[]> {
  const wanted = Math.min(take, total - skip);
  if (wanted <= 0) return [];
  const mirrored = total - skip - wanted;
  if (mirrored < skip) return (await readSegmentPage(segment, window, !forward, mirrored, wanted, total)).reverse();
  let bounds: Bounds = segment.timeBounds ? windowBounds(segment, window) : {};
  let remaining = skip;
  const landing = skip > 0 ? await landingOf(segment, window, forward, skip) : null;
  if (landing === undefined) return [];
  if (landing) {
    const fromEnd = landing.count - landing.remaining - wanted;
    if (fromEnd >= 0 && fromEnd < landing.remaining) {
      // The page lies inside this bucket and nearer its far end: read the bucket backwards.
      const entries = await readEntries(segment, landing.bounds, !forward, fromEnd, wanted);
      return entries === null ? [] : (await wholeItems(segment, entries)).reverse();
    }
    remaining = landing.remaining;
    bounds = forward ? { lower: landing.bounds.lower, upper: bounds.upper } : { lower: bounds.lower, upper: landing.bounds.upper };
  }
  const entries = await readEntries(segment, bounds, forward, remaining, wanted);
  return entries === null ? [] : wholeItems(segment, entries);
}

async function readEntries(segment: Segment, bounds: Bounds, forward: boolean, skip: number, take: number) {
  if (partitionsOf(segment).length > 1 && skip <= MERGED_SKIP_LIMIT) return (await takeEntries(segment, bounds, forward, undefined, skip + take)).slice(skip);
  const start = skip > 0 ? await skipEntries(segment, bounds, forward, skip) : undefined;
  if (start === null) return null;
  return takeEntries(segment, bounds, forward, start, take);
}

function wholeItems(segment: Segment, entries: Record<string, unknown>[]): Promise<Record<string, unknown>[]> | Record<string, unknown>[] {
  if (!segment.narrow) return entries;
  return fetchItems(entries.map(segment.itemKey ?? ((entry) => ({ pk: entry.pk as string, sk: entry.sk as string }))));
}

/**
 * The bucket holding match number `skip` as sort-key bounds, by the segment's rank counters or its
 * creation-time counters; `null` when no counter describes the segment (the skip reads from the start).
 */
async function landingOf(segment: Segment, window: TimeWindow, forward: boolean, skip: number): Promise<Landing | undefined | null> {
  if (segment.ranked) return segment.ranked.landing(skip, forward);
  if (!segment.counted || !segment.timeBounds) return null;
  const found = await landingBucket(segment, window, forward, skip);
  if (!found) return undefined;
  const { bucket, remaining } = found;
  return { bounds: windowBounds(segment, { from: bucket.from, to: bucket.to }), count: bucket.count, remaining };
}

/** The day, hour (or exact part of a day) holding match number `skip`, and how many matches precede it there. */
async function landingBucket(segment: Segment, window: TimeWindow, forward: boolean, skip: number) {
  const { view, dimension } = segment.counted!;
  let buckets = await bucketsOf(segment, window);
  let remaining = skip;
  for (;;) {
    const ordered = forward ? buckets : [...buckets].reverse();
    const bucket = ordered.find((candidate) => {
      if (remaining < candidate.count) return true;
      remaining -= candidate.count;
      return false;
    });
    if (!bucket) return undefined;
    if (bucket.level === 'month') buckets = await view.splitMonth(bucket, dimension);
    else if (bucket.level === 'day' && bucket.count > DAY_LEAF && view.splitsDays(dimension)) buckets = await view.splitDay(bucket, dimension);
    else return { bucket, remaining };
  }
}

/**
 * A page across segments read one after another (each already in the requested order): their
 * totals place the page, so segments before it are never read. The first page needs no total to
 * start from the first segment's beginning, so that read runs while the totals are counted: a
 * first page (most list requests) costs one round trip, not two.
 */
export async function readPage(segments: readonly Segment[], window: TimeWindow, forward: boolean, skip: number, take: number) {
  const opening = skip === 0 && segments.length > 0 && segments[0]!.sparsity !== Number.POSITIVE_INFINITY ? readSegmentPage(segments[0]!, window, forward, 0, take, Number.POSITIVE_INFINITY) : undefined;
  const [totals, opened] = await Promise.all([Promise.all(segments.map((segment) => segmentTotal(segment, window))), opening]);
  const total = totals.reduce((sum, n) => sum + n, 0);
  const items: Record<string, unknown>[] = [...(opened ?? [])];
  let offset = skip;
  for (const [i, segment] of segments.entries()) {
    if (opened && i === 0) continue;
    if (items.length >= take) break;
    if (offset >= totals[i]!) {
      offset -= totals[i]!;
      continue;
    }
    items.push(...(await readSegmentPage(segment, window, forward, offset, take - items.length, totals[i]!)));
    offset = 0;
  }
  return { items, total };
}

/**
 * An equality filter a list may apply. `dimension` names its counter (`status:pending`); `partition`
 * builds the index partition that holds exactly its matches, when one exists.
 */
export interface Predicate {
  dimension: string;
  filter: Filter;
  partition?: (residual: Filter | undefined) => Segment;
}

/**
 * Plans a list ordered by creation time: the smallest index partition among the predicates (by
 * counters), else the base partition; the other predicates filter it. Counters describe the result
 * when the predicates are none, one, or a counted pair, and nothing else filters.
 */
export async function creationOrderedSegment(
  view: CounterView,
  base: (residual: Filter | undefined) => Segment,
  predicates: readonly Predicate[],
  uncounted: Filter | undefined,
): Promise<Segment> {
  const indexed = predicates.filter((predicate) => predicate.partition);
  const sizes = await Promise.all(indexed.map((predicate) => view.allTime(predicate.dimension)));
  const chosen = indexed[sizes.indexOf(Math.min(...sizes))];
  const rest = predicates.filter((predicate) => predicate !== chosen);
  const residual = allOf(...rest.map((predicate) => predicate.filter), uncounted);
  const segment = chosen ? chosen.partition!(residual) : base(residual);
  const dimension = uncounted === undefined ? countedAs(view.family, predicates.map((predicate) => predicate.dimension)) : undefined;
  if (dimension === undefined) return { ...segment, counted: undefined };
  // The chosen partition's count over the list's: how many entries a filtered read passes per match.
  const matches = residual === undefined ? 0 : await view.allTime(dimension);
  const sparsity = residual === undefined ? undefined : matches === 0 ? Number.POSITIVE_INFINITY : (chosen ? Math.min(...sizes) : await view.allTime('all')) / matches;
  return { ...segment, counted: { view, dimension }, sparsity };
}

/** A list in another order (amount, name…): one index partition, every predicate a filter; counted as in creationOrderedSegment. */
export function sortedSegment(view: CounterView, partition: (filter: Filter | undefined) => Segment, predicates: readonly Predicate[], uncounted: Filter | undefined): Segment {
  const segment = partition(allOf(...predicates.map((predicate) => predicate.filter), uncounted));
  const dimension = uncounted === undefined ? countedAs(view.family, predicates.map((predicate) => predicate.dimension)) : undefined;
  return { ...segment, counted: dimension === undefined ? undefined : { view, dimension } };
}

/** The creation window as a filter on `created_at` (ISO strings in UTC sort as times). */
export function createdFilter(window: TimeWindow): Filter | undefined {
  return between(
    'created_at',
    window.from === undefined ? undefined : new Date(window.from).toISOString(),
    window.to === undefined ? undefined : new Date(window.to - 1).toISOString(),
  );
}

/** Every matching entry of a segment, in index order (searches: the filter cannot be a key condition). */
export function readAllEntries(segment: Segment): Promise<Record<string, unknown>[]> {
  return queryEach(partitionsOf(segment), queryInput(segment, {}, true), keyNames(segment).sort);
}
