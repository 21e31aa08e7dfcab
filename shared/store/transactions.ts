import { runtime } from '../runtime.ts';
import { cancelledPositions, idempotentTransaction, isTransactionConflict, type TransactItems } from './dynamo.ts';

const { db } = runtime;

/** Event items among the writes: the runtime hears of them once the transaction commits (locally they feed the stream stand-in). */
function eventItems(items: readonly TransactItem[]): Record<string, unknown>[] {
  return items.flatMap((item) => {
    const written = item.Put?.Item;
    return written && typeof written.sk === 'string' && written.sk.startsWith('EVENT#') ? [written] : [];
  });
}

export type TransactItem = TransactItems[number];

/** Why a transaction did not commit: which of its writes failed their condition, or that it raced another transaction. */
export type TransactionOutcome = { committed: true } | { committed: false; failedConditions: number[] };

/**
 * Runs writes that must succeed or fail together. A condition failure or a clash with a concurrent
 * transaction comes back as a value, since callers decide what it means (duplicate, retry, conflict).
 * Any other error leaves the outcome unknown (the answer was lost, the writes may have committed):
 * it is thrown, for the caller's caller to deliver the work again, and the runtime is told of the
 * events the writes may have stored (locally the stream stand-in looks them up; in AWS the stream has them).
 */
export async function transact(items: TransactItem[]): Promise<TransactionOutcome> {
  try {
    await db.send(idempotentTransaction(items));
    runtime.eventsCommitted(eventItems(items));
    return { committed: true };
  } catch (error) {
    const failed = cancelledPositions(error);
    if (failed?.length) return { committed: false, failedConditions: failed };
    if (isTransactionConflict(error)) return { committed: false, failedConditions: [] };
    runtime.eventsInDoubt(eventItems(items));
    throw error;
  }
}
