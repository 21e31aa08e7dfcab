import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from './config.ts';
import { systemClock, type Clock } from './ports/clock.ts';
import { createDocumentClient, type Item } from './store/dynamo.ts';

/**
 * The table this process uses and the clock all its code reads, built at import (cold start). The
 * local runtime replaces the clock and the two hooks below when it installs its stand-ins
 * (shared/composition/adapters.ts); in AWS they stay as they are here.
 */
export interface Runtime {
  tableName: string;
  db: DynamoDBDocumentClient;
  clock: Clock;
  /** Told of the event items each committed transaction wrote, as the table's stream is in AWS. */
  eventsCommitted: (items: readonly Item[]) => void;
  /** Told of the event items of a transaction whose answer was lost: it may have committed them. */
  eventsInDoubt: (items: readonly Item[]) => void;
  /** Appended to table-wide registries (the calendar campaigns'), so test files sharing one table keep theirs apart. Empty in AWS. */
  registryScope: string;
}

export const runtime: Runtime = {
  tableName: requireEnv('TABLE_NAME'),
  db: createDocumentClient(),
  clock: systemClock,
  eventsCommitted: () => {},
  eventsInDoubt: () => {},
  registryScope: '',
};
