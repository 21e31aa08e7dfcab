import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type LocalEngine } from '../../bin/local/dynamodb-local.ts';
import { endRecordedGroups, processesWithVariable, REGISTRY_VARIABLE } from '../../bin/local/process-groups.ts';
import { ensureTable, localEnvironment } from '../../bin/local/table.ts';

export const TEST_TABLE = 'recovery-test';
/** Set in the run's environment, so every process the run starts, at any depth, carries it. */
const RUN_VARIABLE = 'RECOVERY_TEST_RUN';

let engine: Pick<LocalEngine, 'endpoint' | 'stop'> | undefined;
let vaultDir: string | undefined;
let registry: string | undefined;
const run = randomUUID();

/**
 * One in-memory DynamoDB Local for the whole run, or the engine DYNAMODB_ENDPOINT names (one run
 * elsewhere, or a proxy in front of one), which the run uses and leaves running; each test creates its
 * own merchants, so files share it safely. The local key vault's key lives in a temporary directory,
 * made by the first file that seals.
 */
export async function setup(project: TestProject): Promise<void> {
  // Before anything starts: the test files' workers and all they start inherit both.
  registry = mkdtempSync(join(tmpdir(), 'recovery-test-processes-'));
  process.env[REGISTRY_VARIABLE] = registry;
  process.env[RUN_VARIABLE] = run;
  const external = process.env.DYNAMODB_ENDPOINT;
  engine = external ? { endpoint: external, stop: async () => {} } : await startDynamoDbLocal();
  await ensureTable(engine.endpoint, TEST_TABLE);
  vaultDir = mkdtempSync(join(tmpdir(), 'recovery-test-vault-'));
  const env = localEnvironment(engine.endpoint, TEST_TABLE, join(vaultDir, 'vault.key'));
  Object.assign(process.env, env);
  project.provide('dynamodbEndpoint', engine.endpoint);
}

/**
 * Stops the engine, then makes sure the run leaves no process behind, whether a test file failed,
 * timed out or forgot to stop what it started: what is left is killed, and the run fails naming it.
 */
export async function teardown(): Promise<void> {
  await engine?.stop();
  if (vaultDir) rmSync(vaultDir, { recursive: true, force: true });
  const unended = registry ? await endRecordedGroups(registry) : [];
  if (registry) rmSync(registry, { recursive: true, force: true });
  // This process's own children (vitest's workers, its esbuild service) carry the variable too; vitest ends them.
  const strays = processesWithVariable(RUN_VARIABLE, run).filter((found) => found.parent !== process.pid);
  for (const stray of strays) {
    try {
      process.kill(stray.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  const left = [...unended, ...strays.map((stray) => `pid ${stray.pid}: ${stray.command}`)];
  if (left.length > 0) {
    process.exitCode = 1; // vitest only logs an error thrown here
    throw new Error(`The test run left ${left.length} process(es) running; they were killed now:\n  ${left.join('\n  ')}`);
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}
