import type { Item, Key } from './dynamo.ts';
import { INDEX_KEY_ATTRIBUTES, TABLE_KEYS } from './table-schema.ts';

/**
 * How every entity is stored, the one mapping convention of the store: an item is the entity's own
 * fields under their own names (the spec's snake_case; a nested value as it is), beside the
 * attributes only storage needs: the key, the entity name, index keys, and whatever else its store
 * module adds (a TTL, a search text). Nothing is renamed or converted on the way in or out, so an
 * item reads like the API object that shows it, and a store module states only its keys.
 */
const STORAGE_ATTRIBUTES: readonly string[] = [TABLE_KEYS.partition, TABLE_KEYS.sort, 'entity', ...INDEX_KEY_ATTRIBUTES];

/** The item for an entity: its key and entity name, its fields, then the storage attributes its module adds. */
export function storedItem<T extends object>(key: Key, entity: string, fields: T, storage: Record<string, unknown> = {}) {
  return { ...key, entity, ...fields, ...storage };
}

/**
 * The entity an item holds: the item without its storage attributes (`storageOnly` names those its
 * module added beyond keys and index keys). Items are written only by `storedItem` from a T, so this
 * is the one place an item is taken for its entity; `defaults` fill fields added after some items
 * were written.
 */
export function entityOf<T extends object>(item: Item, storageOnly: readonly string[] = [], defaults: Partial<T> = {}): T {
  const fields: Item = { ...defaults, ...item };
  for (const name of [...STORAGE_ATTRIBUTES, ...storageOnly]) delete fields[name];
  return fields as T;
}
