/**
 * `npm run bench:against -- <other checkout>`: this tree's Lambda bundles against another checkout's
 * (an earlier commit in a git worktree with its own node_modules), built and timed in the same run,
 * so a refactoring can show it made no function bigger or slower to start. Each tree is bundled with
 * its own lib/bundling.ts; every bundle is then imported in a fresh `node` (bench/cold-start-probe.mjs,
 * import only: the first request's DynamoDB calls are the code's behaviour, not its packaging), the
 * two trees' bundles interleaved in a seeded order per round. Writes bench/results/against.json.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { lambdaEnvironment } from '../lib/bundling.ts';
import { progress } from './progress.ts';
import { seededRandom, summarize, writeResult } from './support.ts';

const HERE = resolve(import.meta.dirname, '..');
const OTHER = resolve(process.argv[2] ?? '');
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 7);
const PROBE = join(import.meta.dirname, 'cold-start-probe.mjs');
const OUT = join(import.meta.dirname, 'tmp', 'against');

interface Target {
  tree: 'this' | 'other';
  handler: string;
  file: string;
  bytes: number;
}

async function bundleTree(root: string, tree: Target['tree']): Promise<Target[]> {
  const { lambdaBuildOptions } = await import(join(root, 'lib', 'bundling.ts'));
  const { lambdaEntries } = await import(join(root, 'bench', 'entries.ts'));
  const handlers = [...new Set((lambdaEntries() as { handler: string }[]).map((entry) => entry.handler))];
  const step = progress.step(`${tree} tree's bundles built`, handlers.length);
  const targets: Target[] = [];
  for (const handler of handlers) {
    const file = join(OUT, tree, `${handler.replace(/[^\w-]+/g, '--')}.mjs`);
    const result = await build({ ...lambdaBuildOptions(join(root, 'functions', `${handler}.ts`), file), absWorkingDir: root, metafile: true, logLevel: 'error' });
    const output = Object.values(result.metafile!.outputs).find((candidate) => candidate.entryPoint !== undefined)!;
    targets.push({ tree, handler, file, bytes: output.bytes });
    step.advance();
  }
  step.done();
  return targets;
}

function importCpuMs(file: string, env: NodeJS.ProcessEnv): Promise<{ import_ms: number; import_cpu_ms: number }> {
  const resultFile = file.replace(/\.mjs$/, '.result.json');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [PROBE, file, '-', resultFile], { env, stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? done(JSON.parse(readFileSync(resultFile, 'utf8'))) : fail(new Error(`probe of ${file} exited ${code}`))));
  });
}

if (!process.argv[2]) throw new Error('usage: npm run bench:against -- <path of another checkout>');
// cold-start.ts loads the runtime, which reads a function's settings; nothing here reaches a table.
Object.assign(process.env, lambdaEnvironment({ tableName: 'bench-against', metricsNamespace: 'PaymentRecovery/bench' }));
const { awsModeEnvironment, shuffled } = await import('./cold-start.ts');
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const targets = [...(await bundleTree(HERE, 'this')), ...(await bundleTree(OTHER, 'other'))];
// Import only: no request is made, so any endpoint will do.
const env = awsModeEnvironment('http://127.0.0.1:1', 'bench', 'http://127.0.0.1:1');
const samples = new Map<Target, { import_ms: number; import_cpu_ms: number }[]>(targets.map((target) => [target, []]));
const random = seededRandom(RUNS);
const timing = progress.step(`imports timed (${RUNS} rounds of ${targets.length})`, RUNS * targets.length);
for (let run = 0; run <= RUNS; run++) {
  for (const target of shuffled(targets, random)) {
    const sample = await importCpuMs(target.file, env);
    // Round 0 warms node and the page cache; it is not kept.
    if (run > 0) samples.get(target)!.push(sample);
    if (run > 0) timing.advance();
  }
}
timing.done();

const median = (target: Target, field: 'import_ms' | 'import_cpu_ms') => summarize(samples.get(target)!.map((sample) => sample[field])).median;
const rows = targets
  .filter((target) => target.tree === 'this')
  .map((mine) => {
    const theirs = targets.find((target) => target.tree === 'other' && target.handler === mine.handler);
    return {
      handler: mine.handler,
      bytes: mine.bytes,
      other_bytes: theirs?.bytes ?? null,
      import_cpu_ms: median(mine, 'import_cpu_ms'),
      other_import_cpu_ms: theirs ? median(theirs, 'import_cpu_ms') : null,
    };
  });
const compared = rows.filter((row) => row.other_bytes !== null);
const total = (pick: (row: (typeof compared)[number]) => number) => compared.reduce((sum, row) => sum + pick(row), 0);
const other = execFileSync('git', ['-C', OTHER, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const self = execFileSync('git', ['-C', HERE, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const result = {
  this_commit: self,
  other_commit: other,
  runs: RUNS,
  functions_compared: compared.length,
  bytes_ratio: Math.round((total((row) => row.bytes) / total((row) => row.other_bytes!)) * 1000) / 1000,
  largest_bytes_ratio: Math.max(...compared.map((row) => Math.round((row.bytes / row.other_bytes!) * 1000) / 1000)),
  import_cpu_ratio: Math.round((total((row) => row.import_cpu_ms) / total((row) => row.other_import_cpu_ms!)) * 1000) / 1000,
  functions: rows,
};
writeResult('against', result);
console.log(JSON.stringify({ ...result, functions: undefined }, null, 2));
rmSync(OUT, { recursive: true, force: true });
