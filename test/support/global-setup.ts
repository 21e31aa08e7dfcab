import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type LocalEngine } from '../../bin/local/dynamodb-local.ts';
import { ensureTable, localEnvironment } from '../../bin/local/table.ts';

export const TEST_TABLE = 'recovery-test';

let engine: LocalEngine | undefined;

/** One in-memory DynamoDB Local for the whole run; each test creates its own merchants, so files share it safely. */
export async function setup(project: TestProject): Promise<void> {
  engine = await startDynamoDbLocal();
  await ensureTable(engine.endpoint, TEST_TABLE);
  const env = localEnvironment(engine.endpoint, TEST_TABLE);
  Object.assign(process.env, env);
  project.provide('dynamodbEndpoint', engine.endpoint);
}

export async function teardown(): Promise<void> {
  await engine?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}
