import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from './config.ts';
import { AdjustableClock, systemClock, type Clock } from './ports/clock.ts';
import { createDocumentClient } from './store/dynamo.ts';

/**
 * The one place that decides which adapter backs each port. RUNTIME_MODE=local (the local server and
 * the tests) swaps in the local adapters; anything else is AWS. Built once per cold start: missing
 * configuration fails here, at import, not on the first request.
 */
export interface Runtime {
  mode: 'aws' | 'local';
  tableName: string;
  db: DynamoDBDocumentClient;
  clock: Clock;
  /** Present only locally: the clock the dev routes and the tests move. */
  devClock?: AdjustableClock;
}

function buildRuntime(env: NodeJS.ProcessEnv): Runtime {
  const tableName = requireEnv('TABLE_NAME', env);
  const db = createDocumentClient();
  if (env.RUNTIME_MODE === 'local') {
    const devClock = new AdjustableClock();
    return { mode: 'local', tableName, db, clock: devClock, devClock };
  }
  return { mode: 'aws', tableName, db, clock: systemClock };
}

export const runtime: Runtime = buildRuntime(process.env);
