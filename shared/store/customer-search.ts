import { DeleteCommand, GetCommand, paginateScan, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { idTime } from '../ids.ts';
import { runtime } from '../runtime.ts';
import type { Customer } from '../model/customer.ts';
import { MAX_PREFIXES, queryWords, searchIndexing } from '../model/customer-search.ts';
import { ENVIRONMENTS, type Tenant } from '../model/tenant.ts';
import { customerSk, findCustomer } from './customers.ts';
import { batchGetConsistent, queryAll } from './dynamo.ts';
import { tenantKey, tenantPk } from './keys.ts';
import { allOf, raw, textKey, type Filter } from './list-query.ts';
import { queryTenant } from './shard-reads.ts';
import { countPlace, monthCounts, SearchCounts, totalOf, type MonthCounts } from './search-counts.ts';
import { transact, type TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * The customer search index (docs/data-model.md, "Customer search"): for every prefix a customer is
 * found by (model/customer-search.ts), one entry in the prefix's partition, `…#SEARCH#<prefix>` /
 * `<customer id>`, so its partition holds exactly the customers the prefix finds, in creation order;
 * the same entry is in gsi4 and gsi5 under the same partition, by name and by email, so a search is
 * read in the list's order. Each partition also counts its entries, per month of their customers'
 * creation (`#COUNT#<YYYY-MM>`, sorted before every id: the month's `matches` and each quarter day's,
 * search-counts.ts), added to in the same transaction as the entries, so a one-word search knows its
 * total and where a deep page starts, and a many-word one reads its rarest word's partition.
 *
 * What a customer's entries were made from is the customer's search record (`CUSTSEARCH#<id>`): the
 * name and email indexed, the prefixes with an entry, and those a rename left behind. Entries, counts
 * and the record change together, in a transaction of their own that checks the customer still has
 * the name and email indexed, run by the event stream after a customer is created or renamed
 * (`syncSearchIndex`): the index follows the customer within seconds, as Stripe's search does, and
 * the customer's own write (a failure's: 11-15 items) never carries it.
 *
 * Entries, counts and the record hold name and email fragments: personal data. Erasure deletes the
 * entries, the record, and the counts that the customer leaves at zero, in the transaction that
 * deletes the customer.
 */
export const searchPartition = (tenant: Tenant, prefix: string): string => `${tenantPk(tenant)}#SEARCH#${prefix}`;
const COUNT_SK = '#COUNT#';
const COUNT = 'matches';
/**
 * Prefixes a rename left behind, kept on the record until erasure: a rename's worth. Erasure's
 * transaction holds 2 × MAX_PREFIXES current ones, these, the record and 7 writes of its own: under 100.
 */
const RETIRED_LIMIT = 30;

/** What the entries are built from: the customer's stable fields and the name and email indexed. */
export type Indexed = Pick<Customer, 'id' | 'name' | 'email' | 'psp' | 'created_at'>;
type Created = Pick<Customer, 'id' | 'created_at'>;

/** Where a customer is counted: by the time their id carries, as the entries' sort keys are ordered and windows bound them. */
const placeOf = (customer: Created) => countPlace(idTime(customer.id)?.getTime() ?? Date.parse(customer.created_at));
/** A customer as its entries were last written: with the prefixes that have one. */
export type IndexedAs = Indexed & { prefixes: readonly string[] };
/** The search record: what the customer's entries are, and the prefixes renames left. */
export type SearchRecord = IndexedAs & { retired: readonly string[]; version: number };
/**
 * The most entry and count writes one index change holds (DynamoDB takes 100 items; the record and
 * the customer check are two more). A change too big for it indexes the customer under fewer words
 * (model/customer-search.ts priorities); the next rename indexes them again.
 */
const WRITE_BUDGET = 96;

export const searchRecordKey = (tenant: Tenant, customerId: string) => (tenantKey(tenant, `CUSTSEARCH#${customerId}`));

/** The search record's item; bulk loads (the list bench's seed) write exactly this. */
export function searchRecordItem(tenant: Tenant, record: SearchRecord) {
  const { id, name, email, psp, created_at, prefixes, retired, version } = record;
  return { ...searchRecordKey(tenant, id), entity: 'search_record', customer_id: id, name, email, psp, created_at, prefixes, retired, version };
}

async function findSearchRecord(tenant: Tenant, customerId: string): Promise<SearchRecord | null> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: searchRecordKey(tenant, customerId), ConsistentRead: true }));
  if (!Item) return null;
  return {
    id: customerId,
    name: (Item.name ?? null) as string | null,
    email: (Item.email ?? null) as string | null,
    psp: Item.psp as string,
    created_at: Item.created_at as string,
    prefixes: (Item.prefixes ?? []) as string[],
    retired: (Item.retired ?? []) as string[],
    version: Number(Item.version),
  };
}

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

/**
 * The count items of a prefix's partition for the customers given: what the index changes would have
 * written. Bulk loads (the list bench's seed) write them; so does a back-fill of a partition counted
 * before month items (its old `#COUNT` item deleted), from its entries.
 */
export function searchCountItems(tenant: Tenant, prefix: string, customers: readonly Created[]): Record<string, unknown>[] {
  const items = new Map<string, Record<string, unknown>>();
  for (const customer of customers) {
    const { month, part } = placeOf(customer);
    const item = items.get(month) ?? { ...countKey(tenant, prefix, month), entity: 'search_count', [COUNT]: 0 };
    item[COUNT] = (item[COUNT] as number) + 1;
    item[part] = ((item[part] as number | undefined) ?? 0) + 1;
    items.set(month, item);
  }
  return [...items.values()];
}

const countKey = (tenant: Tenant, prefix: string, month: string) => ({ pk: searchPartition(tenant, prefix), sk: `${COUNT_SK}${month}` });

/** Adds `by` to the count of a prefix's month and quarter the customer was created in; only if the month's still is `was`, when given. */
function countChange(tenant: Tenant, prefix: string, customer: Created, by: number, was?: number): TransactItem {
  const { month, part } = placeOf(customer);
  return {
    Update: {
      TableName: tableName,
      Key: countKey(tenant, prefix, month),
      UpdateExpression: 'ADD #count :by, #part :by SET entity = :entity',
      ExpressionAttributeNames: { '#count': COUNT, '#part': part },
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
 * not change and every prefix is indexed.
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
      ...added.map((prefix) => countChange(tenant, prefix, after, 1)),
      ...removed.map((prefix) => countChange(tenant, prefix, after, -1)),
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
 * Makes the customer's entries, counts and search record match the customer as stored now, whatever
 * event asked and however late: one transaction, conditional on the customer still having the name
 * and email read (their sort keys) and on the record being the one read. Nothing when they already
 * match, or once the customer is gone (erasure deleted the index with it). False when a rename or
 * another index change landed in between: the caller reads again.
 */
export async function syncSearchIndex(tenant: Tenant, customerId: string): Promise<boolean> {
  const [customer, record] = await Promise.all([findCustomer(tenant, customerId), findSearchRecord(tenant, customerId)]);
  if (!customer) return true;
  const change = searchIndexChange(tenant, record, customer);
  if (change.writes.length === 0 && (record || change.prefixes.length === 0)) return true;
  const outcome = await transact([
    {
      ConditionCheck: {
        TableName: tableName,
        Key: tenantKey(tenant, customerSk(customer.id)),
        ConditionExpression: 'gsi4sk = :name AND gsi5sk = :email',
        ExpressionAttributeValues: { ':name': textKey(customer.name, customer.id), ':email': textKey(customer.email, customer.id) },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: searchRecordItem(tenant, { ...customer, prefixes: change.prefixes, retired: retiredPrefixes(record?.retired ?? [], change), version: (record?.version ?? 0) + 1 }),
        ConditionExpression: record ? 'version = :version' : 'attribute_not_exists(pk)',
        ...(record ? { ExpressionAttributeValues: { ':version': record.version } } : {}),
      },
    },
    ...change.writes,
  ]);
  return outcome.committed;
}

/**
 * Erasure's part: the customer's entries and search record deleted, each count taken down by one, and
 * a count the customer leaves at zero deleted with it (so no fragment of the name stays in a key);
 * prefixes a rename left have their counts deleted when nobody else is counted there. Each write is
 * conditional on what was just read, so a concurrent index change cancels the transaction and the
 * erasure decides again.
 */
export async function eraseSearchIndexWrites(tenant: Tenant, customerId: string): Promise<TransactItem[]> {
  const record = await findSearchRecord(tenant, customerId);
  if (!record) return [{ ConditionCheck: { TableName: tableName, Key: searchRecordKey(tenant, customerId), ConditionExpression: 'attribute_not_exists(pk)' } }];
  const current = new Set(record.prefixes);
  const leftBehind = record.retired.filter((prefix) => !current.has(prefix));
  const { month } = placeOf(record);
  const counts = await readMonthCounts(tenant, [...record.prefixes, ...leftBehind], month);
  const entries = record.prefixes.map((prefix): TransactItem => ({ Delete: { TableName: tableName, Key: { pk: searchPartition(tenant, prefix), sk: customerId } } }));
  const counted = record.prefixes.map((prefix): TransactItem => {
    const matches = counts.get(prefix) ?? 0;
    return matches > 1 ? countChange(tenant, prefix, record, -1, matches) : deleteCountAt(tenant, prefix, month, matches);
  });
  const emptied = leftBehind.filter((prefix) => (counts.get(prefix) ?? 0) === 0).map((prefix) => deleteCountAt(tenant, prefix, month, 0));
  const recordGone: TransactItem = {
    Delete: { TableName: tableName, Key: searchRecordKey(tenant, customerId), ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': record.version } },
  };
  return [...entries, ...counted, ...emptied, recordGone];
}

function deleteCountAt(tenant: Tenant, prefix: string, month: string, matches: number): TransactItem {
  return {
    Delete: {
      TableName: tableName,
      Key: countKey(tenant, prefix, month),
      ConditionExpression: 'attribute_not_exists(#count) OR #count = :was',
      ExpressionAttributeNames: { '#count': COUNT },
      ExpressionAttributeValues: { ':was': matches },
    },
  };
}

/** How many customers created in `month` each prefix finds (absent: none), read consistently. */
async function readMonthCounts(tenant: Tenant, prefixes: readonly string[], month: string): Promise<Map<string, number>> {
  const unique = [...new Set(prefixes)];
  const counts = new Map<string, number>();
  if (unique.length === 0) return counts;
  const items = await batchGetConsistent(db, tableName, unique.map((prefix) => countKey(tenant, prefix, month)), `pk, ${COUNT}`);
  const prefixOf = new Map(unique.map((prefix) => [searchPartition(tenant, prefix), prefix]));
  for (const item of items) counts.set(prefixOf.get(item.pk as string)!, Number(item[COUNT] ?? 0));
  return counts;
}

/** A prefix's month items (one Query: a few a year). */
async function partitionCounts(tenant: Tenant, prefix: string): Promise<MonthCounts> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :count)',
      ExpressionAttributeValues: { ':pk': searchPartition(tenant, prefix), ':count': COUNT_SK },
    }),
  );
  return monthCounts(Items.map(({ pk: _pk, sk, entity: _entity, ...attributes }) => ({ month: (sk as string).slice(COUNT_SK.length), attributes })));
}

export interface SearchPlan {
  /** The partition to read: the rarest word's prefix (or domain). */
  partition: string;
  /** The words its entries must still be tested for. */
  filter: Filter | undefined;
  /** The partition's count, when no word needs testing: then it is the total. */
  matches: number;
  /** The partition's counts by month, day and quarter: where a deep page of it starts. */
  counts: SearchCounts;
}

/**
 * How to read a query: its words' counts (one Query per word, at once) choose the partition with the fewest entries,
 * a word naming a domain read from the domain's key when that holds fewer (or exactly its matches);
 * the other words, and a word the partition does not match exactly, become `contains` tests on the
 * entries' search text. `null` when the query has no word to search for.
 */
export async function planSearch(tenant: Tenant, query: string): Promise<SearchPlan | null> {
  const words = queryWords(query);
  if (words.length === 0) return null;
  const keys = [...new Set(words.flatMap((word) => [word.prefix, ...(word.domain ? [word.domain.key] : [])]))];
  const read = await Promise.all(keys.map((key) => partitionCounts(tenant, key)));
  const counts = new Map(keys.map((key, i) => [key, read[i]!]));
  const size = (key: string) => totalOf(counts.get(key)!);
  const reads = words.map((word) => {
    const domain = word.domain;
    if (domain && size(domain.key) > 0 && (domain.exact || size(domain.key) < size(word.prefix))) return { word, key: domain.key, exact: domain.exact };
    return { word, key: word.prefix, exact: word.exact };
  });
  const rarest = reads.reduce((best, read) => (size(read.key) < size(best.key) || (size(read.key) === size(best.key) && read.exact && !best.exact) ? read : best));
  const tested = reads.filter((read) => read !== rarest || !read.exact).map((read) => read.word);
  const filter = allOf(
    ...tested.map((word, i) => raw(`contains(#search, :word${i})`, { '#search': 'search' }, { [`:word${i}`]: ` ${word.word}` })),
  );
  return { partition: searchPartition(tenant, rarest.key), filter, matches: size(rarest.key), counts: new SearchCounts(counts.get(rarest.key)!) };
}

export interface SearchRecountReport {
  /** Partitions recounted: every prefix a search record names. */
  partitions: number;
  /** Month items written from the entries. */
  months: number;
  /** Count items deleted: a partition's single `#COUNT` from before month items, or a month with no entry left. */
  deleted: number;
}

/**
 * Every tenant with a search record, by a Scan: for the local server's one-time recount of a store
 * kept from before month counts (an operator names the tenant to `ops search recount`).
 */
export async function tenantsWithSearchRecords(): Promise<Tenant[]> {
  const found = new Map<string, Tenant>();
  const pages = paginateScan({ client: db }, { TableName: tableName, FilterExpression: 'begins_with(sk, :record)', ExpressionAttributeValues: { ':record': 'CUSTSEARCH#' }, ProjectionExpression: 'pk', ConsistentRead: true });
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const [, merchantId, environment] = (item.pk as string).split('#');
      if (merchantId && ENVIRONMENTS.includes(environment as Tenant['environment'])) found.set(`${merchantId}#${environment}`, { merchantId, environment: environment as Tenant['environment'] });
    }
  }
  return [...found.values()];
}

/**
 * The back-fill for partitions counted before month items (`ops search recount`): each partition a
 * customer's search record names gets its month items rebuilt from its entries, and its other count
 * items deleted. Run with the event stream paused: a change landing between the read and the writes
 * would be counted wrongly. Running it again changes nothing.
 */
export async function recountSearchIndex(tenant: Tenant): Promise<SearchRecountReport> {
  const records = await queryTenant(tenant, { prefix: 'CUSTSEARCH#' }, { ConsistentRead: true });
  const prefixes = [...new Set(records.flatMap((record) => [...((record.prefixes ?? []) as string[]), ...((record.retired ?? []) as string[])]))];
  const report: SearchRecountReport = { partitions: prefixes.length, months: 0, deleted: 0 };
  for (const prefix of prefixes) {
    const partition = (sk: string) => ({ TableName: tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)', ExpressionAttributeValues: { ':pk': searchPartition(tenant, prefix), ':sk': sk }, ProjectionExpression: 'sk, created_at', ConsistentRead: true });
    const [entries, counts] = await Promise.all([queryAll(db, partition('cus_')), queryAll(db, partition('#COUNT'))]);
    const months = searchCountItems(tenant, prefix, entries.map((entry) => ({ id: entry.sk as string, created_at: entry.created_at as string })));
    for (const Item of months) await db.send(new PutCommand({ TableName: tableName, Item }));
    const kept = new Set(months.map((item) => item.sk));
    const stale = counts.filter((count) => !kept.has(count.sk));
    for (const count of stale) await db.send(new DeleteCommand({ TableName: tableName, Key: { pk: searchPartition(tenant, prefix), sk: count.sk } }));
    report.months += months.length;
    report.deleted += stale.length;
  }
  return report;
}
