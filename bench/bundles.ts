/**
 * Every Lambda bundled as CDK bundles it (lib/bundling.ts), into bench/tmp/bundles (inside the
 * project, so a bundle leaving the SDK out resolves it from node_modules as the runtime would from
 * its own), with the floor and its variants built the same way, source maps beside them as deployed.
 * Sizes are the minified .mjs alone: the maps are read only to log an unexpected error's stack.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { lambdaBuildOptions, RUNTIME_SDK_EXTERNALS } from '../lib/bundling.ts';
import { contributors, type Contributor } from './bundle-contributors.ts';
import { lambdaEntries, type LambdaEntry } from './entries.ts';
import { progress, type Step } from './progress.ts';

const PROJECT_ROOT = join(import.meta.dirname, '..');
export const BUNDLE_DIR = join(import.meta.dirname, 'tmp', 'bundles');
const FLOOR_ENTRY = join(import.meta.dirname, 'floor', 'handler.ts');
/** Contributors kept per bundle in the results. */
const TOP = 6;

export interface FloorVariant {
  name: string;
  zod: 'zod' | 'zod/mini';
  sdk: 'bundled' | 'runtime';
  /** The same build as the floor under another name: how far one bundle's figures move within a run. */
  repeat?: boolean;
}

/**
 * The ways to build the floor the issue weighs against each other (docs/decisions.md has the choice),
 * and the floor once more, whose distance from the floor is the run's noise. The floor bundle also
 * stands in for each function making that function's calls (FLOOR_CALLS, bench/cold-start.ts).
 */
export const FLOOR_VARIANTS: readonly FloorVariant[] = [
  { name: 'zod, SDK bundled', zod: 'zod', sdk: 'bundled' },
  { name: 'zod/mini, SDK bundled', zod: 'zod/mini', sdk: 'bundled' },
  { name: 'zod, runtime SDK', zod: 'zod', sdk: 'runtime' },
  { name: 'zod/mini, runtime SDK', zod: 'zod/mini', sdk: 'runtime' },
  { name: 'zod, SDK bundled, again', zod: 'zod', sdk: 'bundled', repeat: true },
];

/**
 * The floor the functions are held to: built as they are (classic zod, the SDK bundled), so a ratio
 * measures what a function adds, not a packaging difference (docs/decisions.md,
 * "Cold start held to a floor making the same calls").
 */
export const FLOOR = FLOOR_VARIANTS[0]!;

export interface Bundle {
  name: string;
  file: string;
  bytes: number;
  contributors: Contributor[];
}

export interface Bundles {
  floors: (Bundle & { variant: FloorVariant })[];
  functions: (Bundle & { entry: LambdaEntry })[];
  seconds: number;
}

/** 'payments/get' → 'payments--get.mjs'; floors get their own prefix, so no handler can clash with one. */
const fileStem = (name: string) => name.replace(/[^\w-]+/g, '--');

async function bundle(name: string, stem: string, entry: string, extra: Partial<BuildOptions> = {}): Promise<Bundle> {
  const file = join(BUNDLE_DIR, `${stem}.mjs`);
  const result = await build({ ...lambdaBuildOptions(entry, file), ...extra, absWorkingDir: PROJECT_ROOT, metafile: true, logLevel: 'error' });
  // The source map is an output too: the bundle is the one with an entry point.
  const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint !== undefined)!;
  return { name, file, bytes: output.bytes, contributors: contributors(output.inputs, output.bytes).slice(0, TOP) };
}

function floorOptions(variant: FloorVariant): Partial<BuildOptions> {
  return {
    ...(variant.zod === 'zod/mini' ? { alias: { zod: 'zod/mini' } } : {}),
    ...(variant.sdk === 'runtime' ? { external: [...RUNTIME_SDK_EXTERNALS] } : {}),
  };
}

/** Two builds at a time: esbuild uses both cores for one already, more only queue. */
async function inPairs<T, R>(items: readonly T[], work: (item: T) => Promise<R>, step: Step): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 2) {
    const pair = items.slice(i, i + 2);
    results.push(...(await Promise.all(pair.map(work))));
    step.advance(pair.length);
  }
  return results;
}

async function buildAll(): Promise<Bundles> {
  const started = performance.now();
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // One bundle per handler module, however many functions run it.
  const entries = [...new Map(lambdaEntries().map((entry) => [entry.handler, entry])).values()];
  const step = progress.step('bundles built', FLOOR_VARIANTS.length + entries.length);
  const floors = await inPairs(
    FLOOR_VARIANTS,
    async (variant) => ({ ...(await bundle(variant.name, `floor--${fileStem(variant.name)}`, FLOOR_ENTRY, floorOptions(variant))), variant }),
    step,
  );
  const functions = await inPairs(
    entries,
    async (entry) => ({ ...(await bundle(entry.handler, fileStem(entry.handler), join(PROJECT_ROOT, 'functions', `${entry.handler}.ts`))), entry }),
    step,
  );
  step.done();
  return { floors, functions, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

let built: Promise<Bundles> | undefined;

/** Built once per `npm run bench`: the cold-start bench starts the bundles this run measured. */
export function bundles(): Promise<Bundles> {
  built ??= buildAll();
  return built;
}

export async function benchBundles() {
  const { floors, functions, seconds } = await bundles();
  return {
    build_seconds: seconds,
    floor: FLOOR.name,
    floor_variants: floors.map(({ variant, bytes, contributors }) => ({ name: variant.name, zod: variant.zod, sdk: variant.sdk, repeat: variant.repeat ?? false, bytes, contributors })),
    functions: functions.map(({ entry, bytes, contributors }) => ({ handler: entry.handler, kind: entry.kind, bytes, contributors })),
  };
}
