import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from '../../shared/zod.ts';

const ROOT = join(import.meta.dirname, '../..');

function sources(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(directory, file));
}

/** Builds and parses an object schema, counting the functions compiled from strings meanwhile. */
function compilesOnFirstParse(): number {
  const compile = vi.spyOn(globalThis, 'Function');
  const schema = z.strictObject({ id: z.string(), amount: z.number().optional() });
  expect(schema.parse({ id: 'pay_1', amount: 2900 })).toEqual({ id: 'pay_1', amount: 2900 });
  const calls = compile.mock.calls.length;
  compile.mockRestore();
  return calls;
}

describe('zod as the service uses it', () => {
  afterEach(() => {
    z.config({ jitless: true });
    vi.restoreAllMocks();
  });

  it('parses without compiling a parser per schema (the JIT costs a cold start more than it saves)', () => {
    expect(compilesOnFirstParse()).toBe(0);
    // With the JIT on, the same parse compiles (the first run also probes whether it may; the second
    // counts the parser alone), so the zero above is the setting's doing, not the probe's blind spot.
    z.config({ jitless: false });
    compilesOnFirstParse();
    expect(compilesOnFirstParse()).toBeGreaterThan(0);
  });

  it('is imported from shared/zod.ts by every module, so the setting precedes every schema', () => {
    const direct = [...sources('shared'), ...sources('functions')]
      .filter((file) => file !== join('shared', 'zod.ts'))
      .filter((file) => /^import (?!type\b)[^;]*from 'zod(\/[^']*)?';/m.test(readFileSync(join(ROOT, file), 'utf8')))
      .map((file) => relative(ROOT, join(ROOT, file)));
    expect(direct).toEqual([]);
  });
});
