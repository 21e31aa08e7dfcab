import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { cancelledPositions, isTransactionConflict } from './dynamo.ts';

const { db } = runtime;

/** Event items among the writes: the runtime hears of them once the transaction commits (locally they feed the stream stand-in). */
function eventItems(items: readonly TransactItem[]): Record<string, unknown>[] {
  return items.flatMap((item) => {
    const written = item.Put?.Item;
    return written && typeof written.sk === 'string' && written.sk.startsWith('EVENT#') ? [written] : [];
  });
}

export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** Why a transaction did not commit: which of its writes failed their condition, or that it raced another transaction. */
export type TransactionOutcome = { committed: true } | { committed: false; failedConditions: number[] };

/**
 * Runs writes that must succeed or fail together. A condition failure or a clash with a concurrent
 * transaction comes back as a value, since callers decide what it means (duplicate, retry, conflict).
 */
export async function transact(items: TransactItem[]): Promise<TransactionOutcome> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
    runtime.eventsCommitted(eventItems(items));
    return { committed: true };
  } catch (error) {
    const failed = cancelledPositions(error);
    if (failed?.length) return { committed: false, failedConditions: failed };
    if (isTransactionConflict(error)) return { committed: false, failedConditions: [] };
    throw error;
  }
}
