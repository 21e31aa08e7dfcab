import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Customer } from '../model/customer.ts';
import { MAX_PREFIXES, queryWords, searchIndexing, type QueryWord } from '../model/customer-search.ts';
import type { Tenant } from '../model/tenant.ts';
import { batchGetConsistent } from './dynamo.ts';
import { tenantPk } from './keys.ts';
import { allOf, raw, textKey, type Filter } from './list-query.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * The customer search index (docs/data-model.md, "Customer search"): for every prefix a customer is
 * found by (model/customer-search.ts), one entry in the prefix's partition, `…#SEARCH#<prefix>` /
 * `<customer id>`, so its partition holds exactly the customers the prefix finds, in creation order;
 * the same entry is in gsi4 and gsi5 under the same partition, by name and by email, so a search is
 * read in the list's order. Each partition also holds the count of its entries (`#COUNT`, sorted
 * before every id), added to in the same transaction as the entries, so a one-word search knows its
 * total and a many-word one reads its rarest word's partition.
 *
 * Entries and counts hold name and email fragments in their keys: personal data. Erasure deletes the
 * entries, and the counts that the customer leaves at zero, in the transaction that deletes the
 * customer; counts a rename left at zero are remembered on the customer (`search_retired`) for that.
 */
export const searchPartition = (tenant: Tenant, prefix: string): string => `${tenantPk(tenant)}#SEARCH#${prefix}`;
const COUNT_SK = '#COUNT';
const COUNT = 'matches';
/**
 * Prefixes a rename left behind, kept on the customer until erasure: a rename's worth. Erasure's
 * transaction holds 2 × MAX_PREFIXES current ones, these, and 7 writes of its own: under 100.
 */
const RETIRED_LIMIT = 30;

/** What the entries are built from: the customer's stable fields and the name and email indexed. */
export type Indexed = Pick<Customer, 'id' | 'name' | 'email' | 'psp' | 'created_at'>;
/** A customer as its entries were last written: with the prefixes that have one. */
export type IndexedAs = Indexed & { prefixes: readonly string[] };
/**
 * The most index writes one customer write adds to its transaction (DynamoDB takes 100 items; the
 * write they join has up to ~20). A change too big for it indexes the customer under fewer words
 * (model/customer-search.ts priorities) and the next write of the customer adds the rest.
 */
const WRITE_BUDGET = 70;

/** One index entry; bulk loads (the list bench's seed) write exactly this. */
export function searchEntry(tenant: Tenant, customer: Indexed, prefix: string, text: string) {
  const pk = searchPartition(tenant, prefix);
  return {
    pk,
    sk: customer.id,
    entity: 'search_entry',
    customer_id: customer.id,
    psp: customer.psp,
    created_at: customer.created_at,
    search: text,
    gsi4pk: pk,
    gsi4sk: textKey(customer.name, customer.id),
    gsi5pk: pk,
    gsi5sk: textKey(customer.email, customer.id),
  };
}

/** The count item of a prefix's partition; bulk loads write it with the number of entries they wrote. */
export const searchCountItem = (tenant: Tenant, prefix: string, matches: number) => ({
  pk: searchPartition(tenant, prefix),
  sk: COUNT_SK,
  entity: 'search_count',
  [COUNT]: matches,
});

const countKey = (tenant: Tenant, prefix: string) => ({ pk: searchPartition(tenant, prefix), sk: COUNT_SK });

/** Adds `by` to a prefix's count; only if it still is `was`, when given. */
function countChange(tenant: Tenant, prefix: string, by: number, was?: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: countKey(tenant, prefix),
      UpdateExpression: 'ADD #count :by SET entity = :entity',
      ExpressionAttributeNames: { '#count': COUNT },
      ExpressionAttributeValues: { ':by': by, ':entity': 'search_count', ...(was === undefined ? {} : { ':was': was }) },
      ...(was === undefined ? {} : { ConditionExpression: '#count = :was' }),
    },
  };
}

const sameKeys = (a: Indexed, b: Indexed): boolean => textKey(a.name, a.id) === textKey(b.name, b.id) && textKey(a.email, a.id) === textKey(b.email, b.id);

export interface SearchIndexChange {
  writes: TransactItem[];
  /** The prefixes the customer is now found by. */
  prefixes: string[];
  /** Prefixes the customer is no longer found by. */
  removed: string[];
}

/**
 * The writes that move a customer's entries from `before` (as last written; null when it had none)
 * to `after`: new prefixes are put and counted, dropped ones deleted and discounted, and when the
 * search text or a sort key changed the kept entries are put again. Nothing when name and email did
 * not change and every prefix is indexed. Part of the transaction that writes the customer.
 */
export function searchIndexChange(tenant: Tenant, before: IndexedAs | null, after: Indexed): SearchIndexChange {
  const had = new Set(before?.prefixes ?? []);
  const rewrite = before !== null && (searchIndexing(before.name, before.email).text !== searchIndexing(after.name, after.email).text || !sameKeys(before, after));
  for (let limit = MAX_PREFIXES; ; limit--) {
    const next = searchIndexing(after.name, after.email, limit);
    const has = new Set(next.prefixes);
    const added = next.prefixes.filter((prefix) => !had.has(prefix));
    const removed = [...had].filter((prefix) => !has.has(prefix));
    const put = rewrite ? next.prefixes : added;
    if (put.length + 2 * removed.length + added.length > WRITE_BUDGET && limit > 0) continue;
    const writes = [
      ...put.map((prefix): TransactItem => ({ Put: { TableName: tableName, Item: searchEntry(tenant, after, prefix, next.text) } })),
      ...removed.map((prefix): TransactItem => ({ Delete: { TableName: tableName, Key: { pk: searchPartition(tenant, prefix), sk: after.id } } })),
      ...added.map((prefix) => countChange(tenant, prefix, 1)),
      ...removed.map((prefix) => countChange(tenant, prefix, -1)),
    ];
    return { writes, prefixes: next.prefixes, removed };
  }
}

/** The prefixes to remember after a rename: earlier ones and those just dropped, less those found by again. */
export function retiredPrefixes(earlier: readonly string[], change: SearchIndexChange): string[] {
  const current = new Set(change.prefixes);
  const removed = change.removed;
  return [...new Set([...removed, ...earlier])].filter((prefix) => !current.has(prefix)).slice(0, RETIRED_LIMIT);
}

/**
 * Erasure's part: the customer's entries deleted, each count taken down by one, and a count the
 * customer leaves at zero deleted with it (so no fragment of the name stays in a key); retired
 * prefixes' counts deleted when nobody else is counted there. Each count write is conditional on the
 * value just read, so a concurrent change to it cancels the transaction and the erasure decides again.
 */
export async function eraseSearchIndexWrites(tenant: Tenant, indexed: IndexedAs | null, retired: readonly string[]): Promise<TransactItem[]> {
  const prefixes = indexed?.prefixes ?? [];
  const current = new Set(prefixes);
  const leftBehind = retired.filter((prefix) => !current.has(prefix));
  const counts = await readCounts(tenant, [...prefixes, ...leftBehind], true);
  const entries = prefixes.map((prefix): TransactItem => ({ Delete: { TableName: tableName, Key: { pk: searchPartition(tenant, prefix), sk: indexed!.id } } }));
  const counted = prefixes.map((prefix): TransactItem => {
    const matches = counts.get(prefix) ?? 0;
    return matches > 1 ? countChange(tenant, prefix, -1, matches) : deleteCountAt(tenant, prefix, matches);
  });
  const emptied = leftBehind.filter((prefix) => (counts.get(prefix) ?? 0) === 0).map((prefix) => deleteCountAt(tenant, prefix, 0));
  return [...entries, ...counted, ...emptied];
}

function deleteCountAt(tenant: Tenant, prefix: string, matches: number): TransactItem {
  return {
    Delete: {
      TableName: tableName,
      Key: countKey(tenant, prefix),
      ConditionExpression: 'attribute_not_exists(#count) OR #count = :was',
      ExpressionAttributeNames: { '#count': COUNT },
      ExpressionAttributeValues: { ':was': matches },
    },
  };
}

/** How many customers each prefix finds (absent: none). */
async function readCounts(tenant: Tenant, prefixes: readonly string[], consistent: boolean): Promise<Map<string, number>> {
  const unique = [...new Set(prefixes)];
  const counts = new Map<string, number>();
  if (unique.length === 1 && !consistent) {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: countKey(tenant, unique[0]!) }));
    if (Item) counts.set(unique[0]!, Number(Item[COUNT] ?? 0));
    return counts;
  }
  if (unique.length === 0) return counts;
  const items = await batchGetConsistent(db, tableName, unique.map((prefix) => countKey(tenant, prefix)), `pk, ${COUNT}`);
  const prefixOf = new Map(unique.map((prefix) => [searchPartition(tenant, prefix), prefix]));
  for (const item of items) counts.set(prefixOf.get(item.pk as string)!, Number(item[COUNT] ?? 0));
  return counts;
}

export interface SearchPlan {
  /** The partition to read: the rarest word's prefix. */
  partition: string;
  /** The words its entries must still be tested for. */
  filter: Filter | undefined;
  /** The partition's count, when no word needs testing: then it is the total. */
  matches: number;
}

/**
 * How to read a query: its words' counts (one request) choose the partition with the fewest entries;
 * the other words, and a word longer than the indexed prefixes, become `contains` tests on the entries'
 * search text. `null` when the query has no word to search for.
 */
export async function planSearch(tenant: Tenant, query: string): Promise<SearchPlan | null> {
  const words = queryWords(query);
  if (words.length === 0) return null;
  const counts = await readCounts(tenant, words.map((word) => word.prefix), false);
  const size = (word: QueryWord) => counts.get(word.prefix) ?? 0;
  const rarest = words.reduce((best, word) => (size(word) < size(best) || (size(word) === size(best) && word.exact && !best.exact) ? word : best));
  const tested = words.filter((word) => word !== rarest || !word.exact);
  const filter = allOf(
    ...tested.map((word, i) => raw(`contains(#search, :word${i})`, { '#search': 'search' }, { [`:word${i}`]: ` ${word.word}` })),
  );
  return { partition: searchPartition(tenant, rarest.prefix), filter, matches: size(rarest) };
}
