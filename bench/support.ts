import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal, type LocalEngine } from '../bin/local/dynamodb-local.ts';
import { VAULT_KEY_FILE } from '../bin/local/credentials.ts';
import { ensureTable, localEnvironment } from '../bin/local/table.ts';

export const RESULTS_DIR = join(import.meta.dirname, 'results');

/** An in-memory DynamoDB Local with the table, the environment pointing the runtime at it, and the local stand-ins installed. */
export async function benchEngine(): Promise<LocalEngine> {
  const engine = await startDynamoDbLocal();
  await ensureTable(engine.endpoint, 'recovery-bench');
  Object.assign(process.env, localEnvironment(engine.endpoint, 'recovery-bench', VAULT_KEY_FILE), { LOG_LEVEL: 'error' });
  // Imported only now: the runtime reads the environment above at import.
  const { installLocalRuntime } = await import('../bin/local/local-runtime.ts');
  installLocalRuntime('default');
  return engine;
}

/** Deterministic pseudo-random numbers (the list bench's data, the cold-start bench's orders): the one the local fault injection uses. */
export { seededRandom } from '../shared/adapters/local/port-faults.ts';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function summarize(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    count: sorted.length,
    median: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
  };
}

export function writeResult(name: string, result: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ measured_at: new Date().toISOString(), machine: machine(), ...(result as object) }, null, 2)}\n`);
  return file;
}

function machine() {
  return { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: (globalThis as any).navigator?.hardwareConcurrency ?? null };
}

/** Shared with the tests that hold the same request budgets (test/integration/request-costs.test.ts). */
export { requestCounter } from '../test/support/dynamodb-requests.ts';
