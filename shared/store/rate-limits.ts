import { ReturnValuesOnConditionCheckFailure } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from '../model/plans.ts';
import { countInWindow, expiredSeconds, requestsIn, secondOf, type SecondCounts } from '../model/sliding-window.ts';
import { isConditionFailure, itemAtConditionFailure, type Item } from './dynamo.ts';
import { TTL_ATTRIBUTE } from './table-schema.ts';

const { db, tableName } = runtime;

export type AdmitOutcome = { admitted: boolean; counts: SecondCounts };

/**
 * The window item as this instance last saw it, per window: lets the first attempt drop the seconds
 * that have left. Only a hint, so it keeps the windows seen last: one forgotten is treated as by a
 * fresh instance, and an instance serving many merchants (or callers) does not grow with them.
 */
const lastSeen = new Map<string, SecondCounts>();
const WINDOWS_REMEMBERED = 1_000;

function remember(pk: string, counts: SecondCounts): void {
  lastSeen.delete(pk);
  lastSeen.set(pk, counts);
  if (lastSeen.size > WINDOWS_REMEMBERED) lastSeen.delete(lastSeen.keys().next().value!);
}
const MAX_ATTEMPTS = 8;
/**
 * Seconds that have left are removed a few at a time: every instance of a busy merchant knows the
 * same ones, and only one removal of each can succeed (the others' conditions fail and they try again),
 * so batching makes that race one in five seconds instead of every second. The item stays under 1 KB.
 */
const REMOVE_IN_BATCHES_OF = 5;
/** One attribute per second with admissions (`s1795305122`), beside their sum in `total`. */
const SECOND_ATTRIBUTE = /^s(\d+)$/;
const secondAttribute = (second: number) => `s${second}`;

function countsOf(item: Item | undefined): SecondCounts {
  const counts = new Map<number, number>();
  for (const [name, value] of Object.entries(item ?? {})) {
    const second = SECOND_ATTRIBUTE.exec(name)?.[1];
    if (second !== undefined) counts.set(Number(second), value as number);
  }
  return counts;
}

/**
 * Counts one request in a window (keys.ts names them: a merchant's API requests, its cancel-session
 * starts, one client's starts), atomically and with no read. The item keeps a count per second and
 * their sum; the request adds one to its second and to the sum, removing seconds this instance knows
 * have left the window (each conditioned on the count it knows, so none is subtracted twice), on
 * condition that the sum without them is below the limit. Seconds left in place (unknown to this
 * instance, or waiting for their batch) only make the sum larger, never smaller: a refusal is then
 * checked against the item the failed condition returns, which is exact, and the request tried again
 * removing all that has left. Each admission moves the item's TTL to when its last second leaves the
 * window: a window nobody uses any more (a caller's address, a deleted merchant) is removed.
 */
export async function admitRequest(pk: string, limit: number, nowMs: number): Promise<AdmitOutcome> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const expired = expiredSeconds(lastSeen.get(pk) ?? new Map(), nowMs);
    // A retry knows the item exactly (the failed condition returned it) and removes all that has left.
    const leaving = attempt > 0 || expired.length >= REMOVE_IN_BATCHES_OF ? expired : [];
    const left = requestsIn(leaving);
    const names: Record<string, string> = { '#total': 'total', '#now': secondAttribute(secondOf(nowMs)), '#legacyLog': 'log', '#expires': TTL_ATTRIBUTE };
    const values: Record<string, number> = {
      ':zero': 0,
      ':one': 1,
      ':delta': 1 - left,
      ':ceiling': limit + left,
      ':expires': secondOf(nowMs) + RATE_LIMIT_WINDOW_SECONDS + 1,
    };
    leaving.forEach(([second, count], i) => {
      names[`#left${i}`] = secondAttribute(second);
      values[`:left${i}`] = count;
    });
    const command = new UpdateCommand({
      TableName: tableName,
      Key: { pk, sk: 'RATE' },
      // Items written before the per-second counts held every arrival in `log`; the first admission drops it.
      UpdateExpression:
        'SET #now = if_not_exists(#now, :zero) + :one, #total = if_not_exists(#total, :zero) + :delta, #expires = :expires REMOVE #legacyLog' +
        leaving.map((_, i) => `, #left${i}`).join(''),
      ConditionExpression: ['(attribute_not_exists(#total) OR #total < :ceiling)', ...leaving.map((_, i) => `#left${i} = :left${i}`)].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
    });
    try {
      const { Attributes } = await db.send(command);
      const counts = countsOf(Attributes);
      remember(pk, counts);
      return { admitted: true, counts };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const counts = countsOf(itemAtConditionFailure(error));
      remember(pk, counts);
      if (countInWindow(counts, nowMs) >= limit) return { admitted: false, counts };
    }
  }
  // Persistent contention: refuse rather than risk admitting past the limit.
  return { admitted: false, counts: new Map() };
}
