import { ReturnValuesOnConditionCheckFailure, type ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { runtime } from '../composition.ts';
import type { Tenant } from '../domain/tenant.ts';
import { isConditionFailure } from './dynamo.ts';
import { rateLimitPk } from './keys.ts';

const { db, tableName } = runtime;

export type AdmitOutcome = { admitted: true; log: number[] } | { admitted: false; log: number[] };

/** Last log length seen per tenant on this instance: lets the first attempt pick the right expression. */
const lengthHint = new Map<string, number>();
const MAX_ATTEMPTS = 8;
/** An index past any list's end: SET at it appends (DynamoDB has no push that can be combined with REMOVE). */
const APPEND_INDEX = 1_000_000;

/**
 * Records one request in the tenant's sliding log, atomically and with no read: while the log is
 * shorter than the limit the request is appended; once full, the oldest entries are dropped and the
 * request appended only if the entry that would make it the limit+1-th in the window is outside it.
 * A failed condition returns the current log, which either shows the window is full or lets the
 * next attempt use the right length (a changed limit, or another instance filled the log first).
 */
export async function admitRequest(tenant: Tenant, limit: number, nowMs: number, cutoffMs: number): Promise<AdmitOutcome> {
  const pk = rateLimitPk(tenant);
  let length = lengthHint.get(pk) ?? 0;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const command =
      length < limit
        ? new UpdateCommand({
            TableName: tableName,
            Key: { pk, sk: 'RATE' },
            UpdateExpression: 'SET #log = list_append(if_not_exists(#log, :empty), :entry)',
            ConditionExpression: 'attribute_not_exists(#log) OR size(#log) < :limit',
            ExpressionAttributeNames: { '#log': 'log' },
            ExpressionAttributeValues: { ':empty': [], ':entry': [nowMs], ':limit': limit },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
          })
        : new UpdateCommand({
            TableName: tableName,
            Key: { pk, sk: 'RATE' },
            UpdateExpression: `SET #log[${APPEND_INDEX}] = :now REMOVE ${Array.from({ length: length - limit + 1 }, (_, i) => `#log[${i}]`).join(', ')}`,
            ConditionExpression: `size(#log) = :length AND #log[${length - limit}] <= :cutoff`,
            ExpressionAttributeNames: { '#log': 'log' },
            ExpressionAttributeValues: { ':now': nowMs, ':length': length, ':cutoff': cutoffMs },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
          });
    try {
      const { Attributes } = await db.send(command);
      const log = (Attributes?.log as number[]) ?? [];
      lengthHint.set(pk, log.length);
      return { admitted: true, log };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = (error as ConditionalCheckFailedException).Item;
      const log = item ? ((unmarshall(item).log as number[] | undefined) ?? []) : [];
      lengthHint.set(pk, log.length);
      const inWindow = log.filter((at) => at > cutoffMs).length;
      if (inWindow >= limit) return { admitted: false, log };
      length = log.length;
    }
  }
  // Persistent contention: refuse rather than risk admitting past the limit.
  return { admitted: false, log: [] };
}
