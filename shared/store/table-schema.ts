/**
 * The physical single table: generic key names so every entity shares it, and the indexes the
 * infrastructure and the local engine both build from this one definition.
 */
export const TABLE_KEYS = { partition: 'pk', sort: 'sk' } as const;

export const TTL_ATTRIBUTE = 'expires_at';

export const GLOBAL_INDEXES = [
  { name: 'gsi1', partition: 'gsi1pk', sort: 'gsi1sk' },
  { name: 'gsi2', partition: 'gsi2pk', sort: 'gsi2sk' },
  { name: 'gsi3', partition: 'gsi3pk', sort: 'gsi3sk' },
] as const;

export type GlobalIndexName = (typeof GLOBAL_INDEXES)[number]['name'];
