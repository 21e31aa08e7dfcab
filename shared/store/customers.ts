import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { calendarCandidate, cardExpiryMonth, monthKey, totalRecovered, type Customer } from '../model/customer.ts';
import type { Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import type { Item, Key } from './dynamo.ts';
import { tenantKey, tenantPk } from './keys.ts';
import { counterWrites, withPairs } from './list-counters.ts';
import { amountKey, textKey } from './list-query.ts';
import { entityOf, storedItem } from './items.ts';
import { amountOrder, rankItems, rankWrites, type RankedOrder } from './rank-counters.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

export const CUSTOMER_SK_PREFIX = 'CUSTOMER#';
export const customerSk = (customerId: string): string => `${CUSTOMER_SK_PREFIX}${customerId}`;
/** One customer per merchant, environment, processor and processor customer id (§6). */
const customerRefSk = (psp: string, pspCustomerId: string): string => `CUSTREF#${psp}#${pspCustomerId}`;
/** The item naming the customer of a processor customer id. */
export interface CustomerRef {
  customer_id: string;
}

/** The key of a processor customer id's CustomerRef. */
export const customerRefKey = (tenant: Tenant, psp: string, pspCustomerId: string): Key => tenantKey(tenant, customerRefSk(psp, pspCustomerId));

/**
 * The index partitions a customer is listed in (docs/data-model.md, "List indexes"):
 *   gsi1: by status (id order = creation)   gsi2: all by total recovered
 *   gsi4: all by name (narrow)   gsi5: all by email (narrow)
 *   gsi3: calendar candidates only (sparse), by card expiry month, for the daily calendar scan
 */
export const customerPartition = {
  status: (tenant: Tenant, status: string) => `${tenantPk(tenant)}#CUSTOMERS#status#${status}`,
  recovered: (tenant: Tenant) => `${tenantPk(tenant)}#CUSTOMERS#recovered`,
  name: (tenant: Tenant) => `${tenantPk(tenant)}#CUSTOMERS#name`,
  email: (tenant: Tenant) => `${tenantPk(tenant)}#CUSTOMERS#email`,
  cardExpiry: (tenant: Tenant) => `${tenantPk(tenant)}#CUSTOMERS#card_expiry`,
};

/**
 * Present only on customers a calendar trigger could enroll (`calendarCandidate`), so the scan reads
 * the few whose card expires in its window instead of every customer. Every customer write is a
 * whole-item put, so a customer who stops qualifying (new card, canceled, a new failure) leaves it.
 */
function calendarIndexKeys(tenant: Tenant, customer: Customer): { gsi3pk?: string; gsi3sk?: string } {
  if (!calendarCandidate(customer)) return {};
  return { gsi3pk: customerPartition.cardExpiry(tenant), gsi3sk: `${monthKey(cardExpiryMonth(customer.payment_method)!)}#${customer.id}` };
}

/** The list counters a customer counts toward (see list-counters.ts). */
export function customerDimensions(customer: Customer): string[] {
  return withPairs('CUSTOMERS', ['all', `status:${customer.status}`, `psp:${customer.psp}`, `failing:${customer.failed_payments > 0 ? 'yes' : 'no'}`]);
}

/** The value orders whose deep pages start from rank counters (rank-counters.ts), by the sort they serve. */
export const CUSTOMER_RANKED_ORDERS = {
  total_recovered: amountOrder('CUSTOMERS#recovered', 'cus'),
} satisfies Record<string, RankedOrder>;
type RankedAs = Record<keyof typeof CUSTOMER_RANKED_ORDERS, string>;

/** The customer's values in each ranked order, as its index sort keys start. */
export function customerRankedAs(customer: Customer): RankedAs {
  return { total_recovered: amountKey(totalRecovered(customer).amount) };
}

/** The rank counter items of customers written in bulk outside transactions (the list bench's seed). */
export function customerRankItems(tenant: Tenant, customers: readonly Customer[]): Record<string, unknown>[] {
  const sorts = Object.keys(CUSTOMER_RANKED_ORDERS) as (keyof RankedAs)[];
  return sorts.flatMap((sort) =>
    rankItems(tenant, CUSTOMER_RANKED_ORDERS[sort], customers.map((customer) => ({ value: customerRankedAs(customer)[sort], id: customer.id, created_at: customer.created_at }))),
  );
}

/** The rank counter updates that move a customer from the values it was ranked under to its new ones (`null`: absent). */
function customerRankWrites(tenant: Tenant, customer: Customer, before: RankedAs | null, after: RankedAs | null): TransactItem[] {
  const place = (values: RankedAs | null, sort: keyof RankedAs) => values && { value: values[sort], id: customer.id, created_at: customer.created_at };
  const sorts = Object.keys(CUSTOMER_RANKED_ORDERS) as (keyof RankedAs)[];
  return rankWrites(tenant, sorts.map((sort) => ({ order: CUSTOMER_RANKED_ORDERS[sort], before: place(before, sort), after: place(after, sort) })));
}

/**
 * A customer as read, with what its stored item was counted and ranked under: the counter dimensions
 * (`counted_as`) and its values in the ranked orders (`ranked_as`). Domain updates build the next
 * customer by spreading the one they read, so these travel to the write exactly like `version`, and
 * the write moves counts and ranks from what was stored to what is written.
 */
type StoredCustomer = Customer & { counted_as?: string[]; ranked_as?: RankedAs };

/** The stored item, index attributes included; bulk loads (the list bench's seed) write exactly this. */
export function customerItem(tenant: Tenant, customer: Customer) {
  const { counted_as: _counted, ranked_as: _ranked, ...fields } = customer as StoredCustomer;
  const id = customer.id;
  return storedItem(tenantKey(tenant, customerSk(id)), 'customer', fields, {
    counted_as: customerDimensions(customer),
    ranked_as: customerRankedAs(customer),
    gsi1pk: customerPartition.status(tenant, customer.status),
    gsi1sk: id,
    gsi2pk: customerPartition.recovered(tenant),
    gsi2sk: `${amountKey(totalRecovered(customer).amount)}#${id}`,
    gsi4pk: customerPartition.name(tenant),
    gsi4sk: textKey(customer.name, id),
    gsi5pk: customerPartition.email(tenant),
    gsi5sk: textKey(customer.email, id),
    ...calendarIndexKeys(tenant, customer),
  });
}

/**
 * The customer, with `counted_as` and `ranked_as` riding along (see StoredCustomer). Items written
 * before the search index (2026-11-26) also hold `search`, the text the old substring search scanned;
 * some written while requests kept the index hold `search_pending`, which nothing reads any more.
 */
export const customerFromItem = (item: Item): Customer => entityOf<StoredCustomer>(item, ['search', 'search_pending']) as Customer;

export async function findCustomerIdForPsp(tenant: Tenant, psp: string, pspCustomerId: string): Promise<string | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: customerRefKey(tenant, psp, pspCustomerId), ConsistentRead: true }),
  );
  return Item && entityOf<CustomerRef>(Item).customer_id;
}

export async function findCustomer(tenant: Tenant, customerId: string): Promise<Customer | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, customerSk(customerId)), ConsistentRead: true }),
  );
  return Item ? customerFromItem(Item) : undefined;
}

export interface CalendarCandidatesPage {
  customers: Customer[];
  /** Where the next page starts; null after the last. */
  cursor: Record<string, unknown> | null;
}

/** One page of the customers whose card expires in the months `from`..`to` (`YYYY-MM`, inclusive), by expiry. Eventually consistent. */
export async function calendarCandidates(
  tenant: Tenant,
  months: { from: string; to: string },
  cursor: Record<string, unknown> | null,
  limit: number,
): Promise<CalendarCandidatesPage> {
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk BETWEEN :from AND :to',
      // '~' sorts after every id character, so the last month's customers are all inside.
      ExpressionAttributeValues: { ':pk': customerPartition.cardExpiry(tenant), ':from': `${months.from}#`, ':to': `${months.to}#~` },
      ExclusiveStartKey: cursor ?? undefined,
      Limit: limit,
    }),
  );
  return { customers: (page.Items ?? []).map(customerFromItem), cursor: page.LastEvaluatedKey ?? null };
}

export async function getCustomer(tenant: Tenant, customerId: string): Promise<Customer> {
  const customer = await findCustomer(tenant, customerId);
  if (!customer) throw await missingResource(tenant, customerSk(customerId), 'customer', customerId);
  return customer;
}

/**
 * Writes a customer as part of a transaction: a new one together with its processor reference (so two
 * first events cannot create two customers), an existing one only if nobody changed it since it was read.
 * Either way the list and rank counters move in the same transaction.
 */
export function saveCustomerWrites(tenant: Tenant, customer: Customer, readVersion: number | null): TransactItem[] {
  const stored = customer as StoredCustomer;
  const before = readVersion === null ? null : (stored.counted_as ?? null);
  const rankedBefore = readVersion === null ? null : (stored.ranked_as ?? null);
  const counters = [
    ...counterWrites(tenant, 'CUSTOMERS', customer, before, customerDimensions(customer)),
    ...customerRankWrites(tenant, customer, rankedBefore, customerRankedAs(customer)),
  ];
  if (readVersion === null) {
    return [
      { Put: { TableName: tableName, Item: customerItem(tenant, customer), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: tableName,
          Item: storedItem<CustomerRef>(customerRefKey(tenant, customer.psp, customer.psp_customer_id), 'customer_ref', { customer_id: customer.id }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...counters,
    ];
  }
  return [
    {
      Put: {
        TableName: tableName,
        Item: customerItem(tenant, customer),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': readVersion },
      },
    },
    ...counters,
  ];
}

/**
 * Deletes a customer for good (erasure): the item with every index entry it has, its processor
 * reference (so the processor customer is a stranger again), and its counts and ranks; only if it is
 * still the version that was read, so a change that slipped in is never lost unerased.
 */
export function deleteCustomerWrites(tenant: Tenant, customer: Customer): TransactItem[] {
  const counted = (customer as StoredCustomer).counted_as ?? null;
  return [
    {
      Delete: {
        TableName: tableName,
        Key: tenantKey(tenant, customerSk(customer.id)),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': customer.version },
      },
    },
    {
      Delete: {
        TableName: tableName,
        Key: tenantKey(tenant, customerRefSk(customer.psp, customer.psp_customer_id)),
        ConditionExpression: 'attribute_not_exists(pk) OR customer_id = :id',
        ExpressionAttributeValues: { ':id': customer.id },
      },
    },
    ...counterWrites(tenant, 'CUSTOMERS', customer, counted, null),
    ...customerRankWrites(tenant, customer, (customer as StoredCustomer).ranked_as ?? null, null),
  ];
}
