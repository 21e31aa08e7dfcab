import { describe, expect, it } from 'vitest';
import { settleAll } from '../../shared/settle-all.ts';

const after = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms));

describe('settleAll', () => {
  it('returns every result in the order the steps were given, not the order they finished', async () => {
    expect(await settleAll([after(30, 'slow'), after(1, 'fast'), after(10, 'middle')])).toEqual(['slow', 'fast', 'middle']);
  });

  it('lets every step finish before throwing the first failure in the given order', async () => {
    // Prepare
    const finished: string[] = [];
    const step = (ms: number, name: string, fail = false) => after(ms, name, fail).finally(() => finished.push(name));

    // Act
    const outcome = settleAll([step(20, 'second to fail', true), step(1, 'first to fail', true), step(40, 'slowest')]);

    // Assess
    await expect(outcome).rejects.toThrow('second to fail');
    expect(finished.sort()).toEqual(['first to fail', 'second to fail', 'slowest']);
  });

  it('resolves to nothing for no steps', async () => {
    expect(await settleAll([])).toEqual([]);
  });
});
