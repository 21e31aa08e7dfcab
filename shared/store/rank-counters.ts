import { runtime } from '../runtime.ts';
import { idTimePart } from '../ids.ts';
import type { Tenant } from '../model/tenant.ts';
import { tenantKey } from './keys.ts';
import { shardOf } from './list-counters.ts';
import { compareKeys, type KeyRange, type Landing } from './list-query.ts';
import type { TransactItem } from './transactions.ts';
import { queryTenant } from './shard-reads.ts';

const { tableName } = runtime;

/**
 * Rank counters: an order-statistic tree over a list sorted by a value (amount, name…), so page N of
 * that order starts at a bucket found by counts instead of by reading the N × per_page entries before
 * it (docs/data-model.md, "Deep pages in value order").
 *
 * An entry's place in the order is (value, id). Three levels of counts, each a pure function of that
 * place, so a write knows which counters it moves without reading anything:
 *   root   `RANK#<order>#R#<shard>`: entries per value class (amounts by magnitude and two leading digits);
 *   class  `RANK#<order>#C#<class>\u0001<shard>`: entries per exact value in the class;
 *   value  `RANK#<order>#V#<value>\u0001<shard>`: entries of the value per creation day, splitting ties.
 * Written in the transaction that writes the entry (`rankWrites`), sharded by id like the list
 * counters. A reader walks down from the root only while the bucket holding the offset is larger than
 * a leaf, then skips inside that bucket from its nearer end.
 */
export interface RankedOrder {
  /** `PAYMENTS#amount`, `CUSTOMERS#recovered`, …: the counters' key prefix. */
  name: string;
  /** The index sort key is `<value><separator><id>`; ids are `<idPrefix>_<time>…`. */
  separator: string;
  idPrefix: string;
  /** The value's class: a prefix-like label, ordered as the values it holds. */
  classOf: (value: string) => string;
  /** The value as a label in its class's node, as short as keeps the class's labels in the values' order, and back. */
  label: (value: string) => string;
  valueOf: (label: string) => string;
  /** The sort-key bounds of a class's entries. */
  classBounds: (label: string) => KeyRange;
}

/** A position in a ranked order: an entry's value and id, and the day its id was made. */
export interface Ranked {
  value: string;
  id: string;
  created_at: string;
}

const significant = (value: string): string => value.replace(/^0+(?=\d)/, '');

/** Amounts as 16-digit keys (`amountKey`), classed by digit count and two leading digits: ≤ 100 values a class below 10,000, ~90 classes a decade. */
export function amountOrder(name: string, idPrefix: string): RankedOrder {
  return {
    name,
    separator: '#',
    idPrefix,
    classOf: (value) => {
      const digits = significant(value);
      return `${String(digits.length).padStart(2, '0')}${digits.slice(0, 2)}`;
    },
    // A class's values have one digit count, so their digits alone keep their order.
    label: significant,
    valueOf: (label) => label.padStart(16, '0'),
    classBounds: (label) => {
      const length = Number(label.slice(0, 2));
      const leading = label.slice(2);
      const pad = (fill: string) => leading.padEnd(length, fill).padStart(16, '0');
      return { lower: `${pad('0')}#`, upper: `${pad('9')}#~` };
    },
  };
}

/** Buckets the walk stops descending at: a skip inside one reads at most half of it. */
export const RANK_LEAF = 60;

const rootSk = (order: RankedOrder, shard: number) => `RANK#${order.name}#R#${shard}`;
const classSk = (order: RankedOrder, label: string, shard: number) => `RANK#${order.name}#C#${label}\u0001${shard}`;
const valueSk = (order: RankedOrder, value: string, shard: number) => `RANK#${order.name}#V#${value}\u0001${shard}`;
/** Attribute names may not be empty (an empty name is a value too). */
const attribute = (label: string) => `=${label}`;

/** The counter items and attributes one entry is counted under. */
function rankPath(order: RankedOrder, entry: Ranked): { sk: string; label: string }[] {
  const shard = shardOf(entry.id);
  const label = order.classOf(entry.value);
  const value = order.label(entry.value);
  return [
    { sk: rootSk(order, shard), label },
    { sk: classSk(order, label, shard), label: value },
    { sk: valueSk(order, value, shard), label: dayLabel(entry.created_at) },
  ];
}

/** Days as `yyyymmdd`: counter items are billed by size on every write. */
const dayLabel = (createdAt: string): string => createdAt.slice(0, 10).replaceAll('-', '');
const dayStart = (label: string): number => Date.UTC(Number(label.slice(0, 4)), Number(label.slice(4, 6)) - 1, Number(label.slice(6, 8)));

/** A change of one entry's place in one order: `null` before creation or after deletion. */
export interface RankChange {
  order: RankedOrder;
  before: Ranked | null;
  after: Ranked | null;
}

/**
 * The counter updates that move entries from their old places to their new ones, merged per counter
 * item (a transaction may touch an item once); nothing for an entry whose place did not change.
 */
export function rankWrites(tenant: Tenant, changes: readonly RankChange[]): TransactItem[] {
  const deltas = new Map<string, Map<string, number>>();
  const move = (order: RankedOrder, entry: Ranked | null, by: number) => {
    for (const { sk, label } of entry ? rankPath(order, entry) : []) {
      const item = deltas.get(sk) ?? new Map<string, number>();
      item.set(label, (item.get(label) ?? 0) + by);
      deltas.set(sk, item);
    }
  };
  for (const { order, before, after } of changes) {
    if (before?.value === after?.value && before?.id === after?.id) continue;
    move(order, before, -1);
    move(order, after, 1);
  }
  return [...deltas].flatMap(([sk, labels]) => {
    const changed = [...labels].filter(([, by]) => by !== 0);
    if (changed.length === 0) return [];
    return [
      {
        Update: {
          TableName: tableName,
          Key: tenantKey(tenant, sk),
          UpdateExpression: `ADD ${changed.map((_, i) => `#r${i} :r${i}`).join(', ')} SET entity = :entity`,
          ExpressionAttributeNames: Object.fromEntries(changed.map(([label], i) => [`#r${i}`, attribute(label)])),
          ExpressionAttributeValues: { ...Object.fromEntries(changed.map(([, by], i) => [`:r${i}`, by])), ':entity': 'rank_counter' },
        },
      },
    ];
  });
}

/** The counter items for entries written in bulk outside transactions (the list bench's seed). */
export function rankItems(tenant: Tenant, order: RankedOrder, entries: readonly Ranked[]): Record<string, unknown>[] {
  const items = new Map<string, Record<string, unknown>>();
  for (const entry of entries) {
    for (const { sk, label } of rankPath(order, entry)) {
      const item = items.get(sk) ?? { ...tenantKey(tenant, sk), entity: 'rank_counter' };
      item[attribute(label)] = ((item[attribute(label)] as number | undefined) ?? 0) + 1;
      items.set(sk, item);
    }
  }
  return [...items.values()];
}

/** label → count over a node's shards, zero counts left out. */
async function readNode(tenant: Tenant, prefix: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { pk: _pk, sk: _sk, entity: _entity, ...labels } of await queryTenant(tenant, { prefix })) {
    for (const [name, count] of Object.entries(labels)) counts.set(name.slice(1), (counts.get(name.slice(1)) ?? 0) + Number(count));
  }
  for (const [label, count] of counts) if (count <= 0) counts.delete(label);
  return counts;
}

/** The child holding entry number `offset` (from the start, or from the end when `forward` is false). */
export function childAt(counts: ReadonlyMap<string, number>, offset: number, forward: boolean): { label: string; count: number; remaining: number } | undefined {
  const labels = [...counts.keys()].sort(compareKeys);
  if (!forward) labels.reverse();
  let remaining = offset;
  for (const label of labels) {
    const count = counts.get(label)!;
    if (remaining < count) return { label, count, remaining };
    remaining -= count;
  }
  return undefined;
}

/** Values from `from` (inclusive) to `below` (exclusive), as index value keys; either may be open. */
export interface ValueRange {
  from?: string;
  below?: string;
}

/**
 * Reads one order's counters once per request: the total (the root's sum) and the bucket page N
 * starts in. With a value range, offsets count from the range's first entry, which the counts place
 * in the whole order (the class node of each bound: ≤ 8 items more).
 */
export class RankView {
  private readonly nodes = new Map<string, Promise<Map<string, number>>>();

  constructor(
    private readonly tenant: Tenant,
    private readonly order: RankedOrder,
    private readonly range: ValueRange = {},
  ) {}

  private node(prefix: string): Promise<Map<string, number>> {
    let counts = this.nodes.get(prefix);
    if (!counts) {
      counts = readNode(this.tenant, prefix);
      this.nodes.set(prefix, counts);
    }
    return counts;
  }

  private rootCounts = () => this.node(`RANK#${this.order.name}#R#`);
  private classCounts = (label: string) => this.node(`RANK#${this.order.name}#C#${label}\u0001`);

  private async all(): Promise<number> {
    let total = 0;
    for (const count of (await this.rootCounts()).values()) total += count;
    return total;
  }

  /** Entries of the whole order whose value sorts before `value`. */
  private async countBelow(value: string): Promise<number> {
    const label = this.order.classOf(value);
    const root = await this.rootCounts();
    let below = 0;
    for (const [other, count] of root) if (compareKeys(other, label) < 0) below += count;
    if (!root.has(label)) return below;
    const valueLabel = this.order.label(value);
    for (const [other, count] of await this.classCounts(label)) if (compareKeys(other, valueLabel) < 0) below += count;
    return below;
  }

  /** Entries before the range and after it, in the whole order. */
  private async outside(): Promise<{ before: number; after: number }> {
    const [all, start, end] = await Promise.all([
      this.all(),
      this.range.from === undefined ? 0 : this.countBelow(this.range.from),
      this.range.below === undefined ? undefined : this.countBelow(this.range.below),
    ]);
    return { before: start, after: end === undefined ? 0 : all - end };
  }

  async total(): Promise<number> {
    const { before, after } = await this.outside();
    return Math.max(0, (await this.all()) - before - after);
  }

  /** The smallest bucket (a class, a value, or a value's day) that holds entry number `offset` of the range, counted from the `forward` end. */
  async landing(offset: number, forward: boolean): Promise<Landing | undefined> {
    const { before, after } = await this.outside();
    const { order, tenant } = this;
    const inClass = childAt(await this.rootCounts(), offset + (forward ? before : after), forward);
    if (!inClass) return undefined;
    if (inClass.count <= RANK_LEAF) return { bounds: order.classBounds(inClass.label), ...inClass };
    const inValue = childAt(await this.classCounts(inClass.label), inClass.remaining, forward);
    if (!inValue) return undefined;
    const value = order.valueOf(inValue.label);
    const valueBounds = { lower: `${value}${order.separator}`, upper: `${value}${order.separator}~` };
    if (inValue.count <= RANK_LEAF) return { bounds: valueBounds, ...inValue };
    const inDay = childAt(await readNode(tenant, `RANK#${order.name}#V#${inValue.label}\u0001`), inValue.remaining, forward);
    if (!inDay) return undefined;
    const day = dayStart(inDay.label);
    const ids = `${value}${order.separator}${order.idPrefix}_`;
    return { bounds: { lower: `${ids}${idTimePart(day)}`, upper: `${ids}${idTimePart(day + 86_399_999)}~` }, ...inDay };
  }
}
