/**
 * The physical single table: generic key names so every entity shares it, and the indexes the
 * infrastructure and the local engine both build from this one definition.
 */
export const TABLE_KEYS = { partition: 'pk', sort: 'sk' } as const;

export const TTL_ATTRIBUTE = 'expires_at';

/**
 * What the narrow indexes (gsi4, gsi5) carry besides their keys: what list filters test and what an
 * in-memory sort of search matches needs, never whole items. Skipping to a deep page or counting
 * matches reads ~450-byte entries (keys included) instead of whole items; a page is then fetched by key.
 */
export const NARROW_INDEX_ATTRIBUTES = [
  'entity',
  'status',
  'decline_category',
  'decline_code',
  'psp',
  'currency',
  'amount',
  'customer_id',
  'created_at',
  'failed_payments',
  'search',
  'gsi2sk',
  'gsi5sk',
] as const;

export type IndexProjection = 'ALL' | { include: readonly string[] };

export const GLOBAL_INDEXES = [
  { name: 'gsi1', partition: 'gsi1pk', sort: 'gsi1sk', projection: 'ALL' },
  { name: 'gsi2', partition: 'gsi2pk', sort: 'gsi2sk', projection: 'ALL' },
  { name: 'gsi3', partition: 'gsi3pk', sort: 'gsi3sk', projection: 'ALL' },
  { name: 'gsi4', partition: 'gsi4pk', sort: 'gsi4sk', projection: { include: NARROW_INDEX_ATTRIBUTES } },
  { name: 'gsi5', partition: 'gsi5pk', sort: 'gsi5sk', projection: { include: NARROW_INDEX_ATTRIBUTES } },
] as const satisfies readonly { name: string; partition: string; sort: string; projection: IndexProjection }[];

export type GlobalIndexName = (typeof GLOBAL_INDEXES)[number]['name'];

/** Every index key attribute name, so item mappers can strip them in one place. */
export const INDEX_KEY_ATTRIBUTES: readonly string[] = GLOBAL_INDEXES.flatMap((index) => [index.partition, index.sort]);

/** The projection in the shape CloudFormation and the DynamoDB API both use. */
export function projectionOf(projection: IndexProjection): { ProjectionType: 'ALL' | 'INCLUDE'; NonKeyAttributes?: string[] } {
  return projection === 'ALL' ? { ProjectionType: 'ALL' } : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...projection.include] };
}
