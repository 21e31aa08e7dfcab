import { runtime } from '../runtime.ts';

/** Every cache of this process, so the local server can drop them all at once (`POST /__dev/forget-caches`). */
const everyCache = new Set<InstanceCache<unknown>>();

/**
 * Items read on almost every request that rarely change (key grants, processor connections), kept for
 * a few seconds per instance (per Lambda container; the whole local server is one). Entries live
 * `ttlSeconds` on the service clock; past `maxEntries` the least recently used goes first. A miss is
 * never remembered, so an item created anywhere is found at once. Values are frozen: one object is
 * handed to every request that hits it.
 */
export class InstanceCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  /** Bumped by every forget, so a read that started before it cannot store what it read. */
  private generation = 0;

  constructor(
    readonly ttlSeconds: number,
    private readonly maxEntries: number,
  ) {
    everyCache.add(this as InstanceCache<unknown>);
  }

  /** The value if this instance read it less than `ttlSeconds` ago. */
  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Reads the item and keeps a found one (and only if nothing was forgotten while the read ran). */
  async load(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const generation = this.generation;
    const value = await read();
    if (value === undefined) {
      this.entries.delete(key);
      return undefined;
    }
    deepFreeze(value);
    if (generation === this.generation) {
      this.entries.delete(key);
      this.entries.set(key, { value, expiresAt: now() + this.ttlSeconds * 1000 });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** Drops entries whose item this instance just changed, so its next request reads the change. */
  forget(keys: Iterable<string>): void {
    this.generation += 1;
    for (const key of keys) this.entries.delete(key);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

/** As a cold start would: every later request reads from the table again. */
export function clearInstanceCaches(): void {
  for (const cache of everyCache) cache.clear();
}

const now = (): number => runtime.clock.now().getTime();

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
