import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LocalCompletionQueue } from './adapters/local/local-completion-queue.ts';
import { LocalEventFeed } from './adapters/local/local-event-feed.ts';
import { LocalKeyVault } from './adapters/local/local-key-vault.ts';
import { LocalOutbox } from './adapters/local/outbox.ts';
import { LocalScheduler } from './adapters/local/local-scheduler.ts';
import { requireEnv } from './config.ts';
import { AdjustableClock, systemClock, type Clock } from './ports/clock.ts';
import { createDocumentClient } from './store/dynamo.ts';

/**
 * Which adapter backs each port. RUNTIME_MODE=local (the local server and the tests) swaps in the
 * local adapters; anything else is AWS. The table and the clock are built here at import (cold
 * start). Each outside service has its own small module under shared/adapters/ that picks its adapter
 * from this runtime, so a function bundles, configures and is granted only the services it uses.
 */
export interface Runtime {
  mode: 'aws' | 'local';
  tableName: string;
  db: DynamoDBDocumentClient;
  clock: Clock;
  /** Present only locally: the adjustable clock and the local stand-ins for outside services. */
  local?: {
    clock: AdjustableClock;
    /** Keeps this process's schedules, and the registries sweeps enumerate, apart from other processes sharing the table (test files). */
    scope: string;
    scheduler: LocalScheduler;
    outbox: LocalOutbox;
    events: LocalEventFeed;
    completions: LocalCompletionQueue;
    keyVault: LocalKeyVault;
  };
}

function buildRuntime(env: NodeJS.ProcessEnv): Runtime {
  const tableName = requireEnv('TABLE_NAME', env);
  const db = createDocumentClient();
  if (env.RUNTIME_MODE === 'local') {
    // One scope per process: npm start keeps the default; each test file gets its own (test/support/setup.ts).
    const scope = env.LOCAL_SCHEDULER_SCOPE ?? 'default';
    const local = {
      clock: new AdjustableClock(),
      scope,
      scheduler: new LocalScheduler(db, tableName, scope),
      outbox: new LocalOutbox(),
      events: new LocalEventFeed(),
      completions: new LocalCompletionQueue(),
      // The server's and the ops CLI's key under .local/ (bin/local/table.ts), a temporary one in tests.
      keyVault: new LocalKeyVault(requireEnv('LOCAL_VAULT_KEY_FILE', env)),
    };
    return { mode: 'local', tableName, db, clock: local.clock, local };
  }
  return { mode: 'aws', tableName, db, clock: systemClock };
}

export const runtime: Runtime = buildRuntime(process.env);
