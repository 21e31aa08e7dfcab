import { runtime } from '../runtime.ts';
import type { TimeWindow } from '../model/listing.ts';
import { DAY_MS, walkMonths } from '../model/month-walk.ts';
import type { Tenant } from '../model/tenant.ts';
import { tenantKey } from './keys.ts';
import type { TransactItem } from './transactions.ts';
import { queryTenant } from './shard-reads.ts';

const { tableName } = runtime;

/**
 * Bucketed list counters: how many payments (or customers) of a tenant were created on each UTC day
 * and month, under each dimension value they are counted by (`all`, `status:pending`, `psp:stripe`, …).
 * They are written in the same transaction as the item they count, so they are exact, and they answer
 * two questions lists need without reading items: a total, and which day page N starts in (a deep page
 * jumps to its day and only skips within it). See docs/data-model.md.
 *
 * Each day and month is split over COUNTER_SHARDS items (by the counted item's id) so concurrent
 * transactions rarely touch the same counter item; readers add the shards up.
 */
export type CounterFamily = 'PAYMENTS' | 'CUSTOMERS';

/** The dimension values an item is counted under; `null` for an item that does not exist (before creation, after deletion). */
export type Dimensions = readonly string[] | null;

export const COUNTER_SHARDS = 4;

/**
 * Dimensions also counted two at a time (`currency:eur&status:pending`), so a list filtered on any
 * two of them has an exact total and can jump to a deep page like a single filter. Low-cardinality
 * ones only, to keep counter items small (a payment day item holds ~100 attributes at most).
 */
const PAIRED: Record<CounterFamily, readonly string[]> = {
  PAYMENTS: ['status', 'category', 'psp', 'currency'],
  CUSTOMERS: ['status', 'psp', 'failing'],
};

/**
 * A decline code is counted with the status too (`code:expired_card&status:pending`): the filter pair
 * a dunning dashboard asks for most. Codes are many, so only this one pair: a payment day item gains
 * one attribute per code and status seen that day.
 */
const ALSO_PAIRED: Record<CounterFamily, readonly (readonly [string, string])[]> = {
  PAYMENTS: [['code', 'status']],
  CUSTOMERS: [],
};

/**
 * The whole list and each status are also counted per day of the month on the month items
 * (`all@05`) and per hour of the day on the day items (`status:pending@13`), so a deep page in
 * creation order finds its day from the month items it reads anyway and its hour from four day
 * items, instead of reading a month's 124 day items and skipping through a whole day.
 */
export const finelyCounted = (dimension: string): boolean => dimension === 'all' || (dimension.startsWith('status:') && !dimension.includes('&'));

/**
 * A finely counted dimension's attribute for one part (`@05`: all on day 5, `@13pen`: pending in hour
 * 13): short, since counter items are billed by size on every write and read by every list. Three
 * letters tell every payment and customer status apart.
 */
const fineName = (dimension: string, part: string): string => `@${part}${dimension === 'all' ? '' : dimension.slice('status:'.length, 'status:'.length + 3)}`;

/** Days larger than this are split into hours before skipping inside them. */
export const DAY_LEAF = 60;

const kindOf = (dimension: string): string => dimension.split(':')[0]!;
const pairOf = (a: string, b: string): string => [a, b].sort().join('&');

function counted(family: CounterFamily, a: string, b: string): boolean {
  const [kindA, kindB] = [kindOf(a), kindOf(b)];
  if (kindA === kindB) return false;
  if (PAIRED[family].includes(kindA) && PAIRED[family].includes(kindB)) return true;
  return ALSO_PAIRED[family].some(([x, y]) => (x === kindA && y === kindB) || (x === kindB && y === kindA));
}

/** An item's single dimensions plus the pairs counted of them. */
export function withPairs(family: CounterFamily, dimensions: readonly string[]): string[] {
  const pairs = dimensions.flatMap((a, i) => dimensions.slice(i + 1).filter((b) => counted(family, a, b)).map((b) => pairOf(a, b)));
  return [...dimensions, ...pairs];
}

/** The counter that counts exactly the items matching all of these dimension values, if one does. */
export function countedAs(family: CounterFamily, dimensions: readonly string[]): string | undefined {
  if (dimensions.length === 0) return 'all';
  if (dimensions.length === 1) return dimensions[0];
  const [a, b] = dimensions;
  if (dimensions.length === 2 && counted(family, a!, b!)) return pairOf(a!, b!);
  return undefined;
}
const statsPrefix = (family: CounterFamily, level: 'M' | 'D') => `STATS#${family}#${level}#`;
const counterSk = (family: CounterFamily, level: 'M' | 'D', period: string, shard: number) => `${statsPrefix(family, level)}${period}#${shard}`;

/** The counter shard an item's counts go to (its id's last characters). */
export function shardOf(id: string): number {
  let sum = 0;
  for (const char of id.slice(-6)) sum += char.charCodeAt(0);
  return sum % COUNTER_SHARDS;
}

/**
 * The counter updates that move an item from `before` to `after`, for the day and month it was
 * created in; nothing when its dimensions did not change. Part of the caller's transaction.
 */
export function counterWrites(tenant: Tenant, family: CounterFamily, item: { id: string; created_at: string }, before: Dimensions, after: Dimensions): TransactItem[] {
  const delta = new Map<string, number>();
  for (const dimension of before ?? []) delta.set(dimension, (delta.get(dimension) ?? 0) - 1);
  for (const dimension of after ?? []) delta.set(dimension, (delta.get(dimension) ?? 0) + 1);
  const changes = [...delta].filter(([, by]) => by !== 0);
  if (changes.length === 0) return [];
  const shard = shardOf(item.id);
  return counterPlaces(family, item.created_at, shard).map(({ sk, part }) => {
    const added = [...changes, ...changes.filter(([dimension]) => finelyCounted(dimension)).map(([dimension, by]): [string, number] => [fineName(dimension, part), by])];
    const names = Object.fromEntries(added.map(([dimension], i) => [`#d${i}`, dimension]));
    const values: Record<string, unknown> = Object.fromEntries(added.map(([, by], i) => [`:d${i}`, by]));
    values[':entity'] = 'list_counter';
    const update = `ADD ${added.map((_, i) => `#d${i} :d${i}`).join(', ')} SET entity = :entity`;
    return { Update: { TableName: tableName, Key: tenantKey(tenant, sk), UpdateExpression: update, ExpressionAttributeNames: names, ExpressionAttributeValues: values } };
  });
}

/** The day and month items counting an item created at `createdAt`, and the finer part each counts it under (day of month, hour of day). */
function counterPlaces(family: CounterFamily, createdAt: string, shard: number): { sk: string; part: string }[] {
  const day = createdAt.slice(0, 10);
  return [
    { sk: counterSk(family, 'D', day, shard), part: createdAt.slice(11, 13) },
    { sk: counterSk(family, 'M', day.slice(0, 7), shard), part: day.slice(8, 10) },
  ];
}

/**
 * The counter items for items written in bulk outside transactions (the list bench's seed): the same
 * keys and attributes counterWrites maintains, summed up front.
 */
export function counterItems(tenant: Tenant, family: CounterFamily, counted: readonly { id: string; created_at: string; dimensions: readonly string[] }[]) {
  const items = new Map<string, Record<string, unknown>>();
  for (const { id, created_at: createdAt, dimensions } of counted) {
    for (const { sk, part } of counterPlaces(family, createdAt, shardOf(id))) {
      const item = items.get(sk) ?? { ...tenantKey(tenant, sk), entity: 'list_counter' };
      for (const dimension of dimensions) {
        item[dimension] = ((item[dimension] as number | undefined) ?? 0) + 1;
        if (finelyCounted(dimension)) item[fineName(dimension, part)] = ((item[fineName(dimension, part)] as number | undefined) ?? 0) + 1;
      }
      items.set(sk, item);
    }
  }
  return [...items.values()];
}

type Counts = Map<string, Map<string, number>>;

/** period → dimension → count, shards added up; `prefix` selects the items, `levelPrefix` precedes the period in their keys. */
async function readCounters(tenant: Tenant, levelPrefix: string, prefix = levelPrefix): Promise<Counts> {
  const items = await queryTenant(tenant, { prefix });
  const counts: Counts = new Map();
  for (const { pk: _pk, sk, entity: _entity, ...dimensions } of items) {
    const period = (sk as string).slice(levelPrefix.length).split('#')[0]!;
    const into = counts.get(period) ?? new Map<string, number>();
    for (const [dimension, value] of Object.entries(dimensions)) into.set(dimension, (into.get(dimension) ?? 0) + Number(value));
    counts.set(period, into);
  }
  return counts;
}

/** A stretch of creation time and how many matching items were created in it. */
export interface Bucket {
  from: number;
  to: number;
  count: number;
  /** month: can be split into days; day: into hours when finely counted; hour, exact (counted from the items themselves): skip inside it. */
  level: 'month' | 'day' | 'hour' | 'exact';
}

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * Reads a tenant's counters for one family once per request; month items always (a few per year),
 * day items only for the months a window cuts or a deep page lands in.
 */
export class CounterView {
  private months: Promise<Counts> | undefined;
  private readonly days = new Map<string, Promise<Counts>>();

  constructor(
    private readonly tenant: Tenant,
    readonly family: CounterFamily,
  ) {}

  private monthCounts(): Promise<Counts> {
    this.months ??= readCounters(this.tenant, statsPrefix(this.family, 'M'));
    return this.months;
  }

  private dayCounts(month: string): Promise<Counts> {
    let days = this.days.get(month);
    if (!days) {
      days = readCounters(this.tenant, statsPrefix(this.family, 'D'), `${statsPrefix(this.family, 'D')}${month}-`);
      this.days.set(month, days);
    }
    return days;
  }

  /** All-time count of one dimension value: for choosing the smallest partition to read. */
  async allTime(dimension: string): Promise<number> {
    let total = 0;
    for (const counts of (await this.monthCounts()).values()) total += counts.get(dimension) ?? 0;
    return total;
  }

  /**
   * The window cut into buckets, oldest first: whole months from month counters, whole days of the
   * months the window cuts from day counters, and the at most two partial days at its ends counted
   * by `countExactly` (which reads the items of that part of a day).
   */
  async buckets(dimension: string, window: TimeWindow, countExactly: (from: number, to: number) => Promise<number>): Promise<Bucket[]> {
    const months = await this.monthCounts();
    const buckets: Bucket[] = [];
    for (const piece of walkMonths(months.keys(), window, DAY_MS)) {
      if (piece.unit === 'month') buckets.push({ from: piece.from, to: piece.to, count: months.get(piece.month)!.get(dimension) ?? 0, level: 'month' });
      else if (piece.unit === 'day') buckets.push(await this.dayBucket(piece.from, dimension));
      else buckets.push({ from: piece.from, to: piece.to, count: await countExactly(piece.from, piece.to), level: 'exact' });
    }
    return buckets.filter((bucket) => bucket.count > 0);
  }

  /** A whole month's bucket split into its days: from the month items when the dimension is finely counted, else from the day items. */
  async splitMonth(bucket: Bucket, dimension: string): Promise<Bucket[]> {
    if (finelyCounted(dimension)) return this.parts(await this.monthCounts(), monthOf(bucket.from), dimension, bucket.from, DAY_MS, 'day');
    const days: Bucket[] = [];
    for (let day = bucket.from; day < bucket.to; day += DAY_MS) days.push(await this.dayBucket(day, dimension));
    return days.filter((day) => day.count > 0);
  }

  /** A whole day's bucket split into its hours, from its day items (finely counted dimensions only). */
  async splitDay(bucket: Bucket, dimension: string): Promise<Bucket[]> {
    const day = new Date(bucket.from).toISOString().slice(0, 10);
    const counts = await readCounters(this.tenant, statsPrefix(this.family, 'D'), `${statsPrefix(this.family, 'D')}${day}#`);
    return this.parts(counts, day, dimension, bucket.from, 3_600_000, 'hour');
  }

  /** The buckets of a period's finer parts (days of a month, hours of a day: `fineName`), starting at `from`, `size` ms each. */
  private parts(counts: Counts, period: string, dimension: string, from: number, size: number, level: 'day' | 'hour'): Bucket[] {
    const fine = counts.get(period) ?? new Map<string, number>();
    const buckets: Bucket[] = [];
    for (const [name, count] of fine) {
      const part = name.slice(1, 3);
      if (!name.startsWith('@') || name !== fineName(dimension, part) || count <= 0) continue;
      const start = level === 'day' ? from + (Number(part) - 1) * size : from + Number(part) * size;
      buckets.push({ from: start, to: start + size, count, level });
    }
    return buckets.sort((a, b) => a.from - b.from);
  }

  /** Whether a day of this dimension can be split into hours. */
  splitsDays = (dimension: string): boolean => finelyCounted(dimension);

  /** A whole day's bucket from its day items (read once per month). */
  private async dayBucket(day: number, dimension: string): Promise<Bucket> {
    const days = await this.dayCounts(monthOf(day));
    return { from: day, to: day + DAY_MS, count: days.get(new Date(day).toISOString().slice(0, 10))?.get(dimension) ?? 0, level: 'day' };
  }
}
