import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of docs/architecture.md, read off the import statements of the source tree: model at
 * the bottom, the store on it, the domain on both and on the ports, the composition root alone
 * choosing adapters. Type-only imports count too: a circle of types is still a circle to read.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE_FOLDERS = ['shared', 'functions', 'bin', 'lib', 'bench', 'test'];

function sources(): string[] {
  return SOURCE_FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(m?ts|mjs)$/.test(file) && !file.startsWith('tmp/'))
      .map((file) => posix.join(folder, file.split('\\').join('/'))),
  );
}

/** `import … from`, `export … from` and `import(…)` specifiers, resolved to repository paths (packages left out). */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm)].map((match) => match[1] ?? match[2]!);
  return specifiers.flatMap((specifier) => {
    if (specifier.startsWith('#shared/')) return [`shared/${specifier.slice('#shared/'.length)}.ts`];
    if (specifier.startsWith('#functions/')) return [`functions/${specifier.slice('#functions/'.length)}.ts`];
    if (specifier.startsWith('.')) return [posix.normalize(posix.join(dirname(file), specifier))];
    return [];
  });
}

const GRAPH = new Map(sources().map((file) => [file, importsOf(file, readFileSync(join(ROOT, file), 'utf8'))]));

const importers = (from: RegExp, of: RegExp): string[] =>
  [...GRAPH].flatMap(([file, targets]) => (from.test(file) ? targets.filter((target) => of.test(target)).map((target) => `${file} -> ${target}`) : []));

/** Strongly connected components of more than one module (Tarjan), each sorted. */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of GRAPH.get(node) ?? []) {
      if (!GRAPH.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of GRAPH.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the import graph', () => {
  it('reads every source module and resolves every relative import to one', () => {
    expect(GRAPH.size).toBeGreaterThan(300);
    // Tests may hold the text of modules they generate; the source tree itself resolves every import.
    const dangling = [...GRAPH]
      .filter(([file]) => !file.startsWith('test/'))
      .flatMap(([file, targets]) => targets.filter((target) => !GRAPH.has(target)).map((target) => `${file} -> ${target}`));
    expect(dangling).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });

  it('keeps the model at the bottom: it imports only itself and the leaf helpers (zod, ids, body fields)', () => {
    expect(importers(/^shared\/model\//, /^(?!shared\/model\/|shared\/(zod|ids|body-fields)\.ts$)/)).toEqual([]);
  });

  it('keeps the store on the model: nothing in shared/store imports the domain, a port choice or an entry point', () => {
    expect(importers(/^shared\/store\//, /^shared\/(domain|composition|adapters|http|events|representations)\//)).toEqual([]);
  });

  it('keeps adapters out of the domain: use cases get their ports as arguments', () => {
    expect(importers(/^shared\/domain\//, /^shared\/(adapters|composition)\//)).toEqual([]);
  });

  it('lets only the composition root choose adapters, and only the local runtime install stand-ins', () => {
    expect(importers(/^(shared|functions)\/(?!adapters\/|composition\/)/, /^shared\/adapters\//)).toEqual([]);
    expect(importers(/^(shared|functions)\//, /^shared\/adapters\/local\//).filter((edge) => !edge.startsWith('shared/adapters/local/'))).toEqual([]);
    const installers = [...GRAPH.keys()].filter((file) => /\binstallLocalAdapters\(/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(installers.sort()).toEqual(['bin/local/local-runtime.ts', 'shared/composition/adapters.ts']);
  });
});
