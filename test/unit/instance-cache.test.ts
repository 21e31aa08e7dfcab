import { describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { clearInstanceCaches, InstanceCache } from '../../shared/store/instance-cache.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const advance = (seconds: number) => localRuntime().clock.advance(seconds);

/** A stand-in for a table read that counts how often it ran. */
function source<V>(value: V | undefined) {
  const reader = {
    reads: 0,
    read: async () => {
      reader.reads += 1;
      return value;
    },
  };
  return reader;
}

describe('instance cache', () => {
  it('answers from memory until the TTL passes on the service clock, then reads again', async () => {
    // Prepare
    const cache = new InstanceCache<{ secret: string }>(30, 10);
    const item = source({ secret: 'a' });
    // Act
    await cache.load('k', item.read);
    const warm = cache.peek('k');
    advance(29);
    const stillWarm = cache.peek('k');
    advance(2);
    const expired = cache.peek('k');
    // Assess
    expect(warm).toEqual({ secret: 'a' });
    expect(stillWarm).toEqual({ secret: 'a' });
    expect(expired).toBeUndefined();
    expect(item.reads).toBe(1);
  });

  it('never remembers a miss, so an item created elsewhere is found at once', async () => {
    const cache = new InstanceCache<string>(30, 10);
    expect(await cache.load('k', source<string>(undefined).read)).toBeUndefined();
    expect(cache.peek('k')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    // Prepare
    const cache = new InstanceCache<string>(30, 2);
    await cache.load('a', source('A').read);
    await cache.load('b', source('B').read);
    // Act: using a makes b the least recently used
    cache.peek('a');
    await cache.load('c', source('C').read);
    // Assess
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual(['A', undefined, 'C']);
  });

  it('does not store a read that was under way when the item was forgotten', async () => {
    // Prepare: a read that returns the item as it was before a change this instance then makes
    const cache = new InstanceCache<string>(30, 10);
    let finishRead!: (value: string) => void;
    const loading = cache.load('k', () => new Promise<string>((resolve) => (finishRead = resolve)));
    // Act
    cache.forget(['k']);
    finishRead('before the change');
    await loading;
    // Assess
    expect(cache.peek('k')).toBeUndefined();
  });

  it('hands out frozen values, shared by every request that hits them', async () => {
    const cache = new InstanceCache<{ settings: { plan: string } }>(30, 10);
    await cache.load('k', source({ settings: { plan: 'starter' } }).read);
    const hit = cache.peek('k')!;
    expect(() => {
      hit.settings.plan = 'enterprise';
    }).toThrow(TypeError);
  });

  it('forgets everything on clearInstanceCaches, as a cold start', async () => {
    const cache = new InstanceCache<string>(30, 10);
    await cache.load('k', source('V').read);
    clearInstanceCaches();
    expect(cache.peek('k')).toBeUndefined();
  });
});
