import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type LocalEngine } from '../../bin/local/dynamodb-local.ts';
import { ensureTable, localEnvironment } from '../../bin/local/table.ts';

export const TEST_TABLE = 'recovery-test';

let engine: LocalEngine | undefined;
let vaultDir: string | undefined;

/**
 * One in-memory DynamoDB Local for the whole run; each test creates its own merchants, so files share
 * it safely. The local key vault's key lives in a temporary directory, made by the first file that seals.
 */
export async function setup(project: TestProject): Promise<void> {
  engine = await startDynamoDbLocal();
  await ensureTable(engine.endpoint, TEST_TABLE);
  vaultDir = mkdtempSync(join(tmpdir(), 'recovery-test-vault-'));
  const env = localEnvironment(engine.endpoint, TEST_TABLE, join(vaultDir, 'vault.key'));
  Object.assign(process.env, env);
  project.provide('dynamodbEndpoint', engine.endpoint);
}

export async function teardown(): Promise<void> {
  await engine?.stop();
  if (vaultDir) rmSync(vaultDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}
