import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { tenantKey } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { tableName } = runtime;

/** Calendar month in UTC, e.g. 2026-11: the period the plan's recovery-attempt limit counts over. */
export const usagePeriod = (at: Date): string => at.toISOString().slice(0, 7);

/**
 * Counts one recovery attempt against the month's limit, inside the transaction that claims the
 * attempt: the condition makes the limit exact however many attempts start at once.
 */
export function countRecoveryAttemptWrite(tenant: Tenant, at: Date, limit: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: tenantKey(tenant, `USAGE#${usagePeriod(at)}`),
      UpdateExpression: 'ADD recovery_attempts :one SET entity = :entity',
      ConditionExpression: 'attribute_not_exists(recovery_attempts) OR recovery_attempts < :limit',
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':entity': 'usage' },
    },
  };
}

/**
 * Gives back an attempt counted at its claim that charged nothing (no answer, a refusal, nothing to
 * collect, or the payment settled before it ran), to the month it was counted in, inside the
 * transaction that records it: the limit counts charges asked of the processor.
 */
export function returnRecoveryAttemptWrite(tenant: Tenant, claimedAt: Date): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: tenantKey(tenant, `USAGE#${usagePeriod(claimedAt)}`),
      UpdateExpression: 'ADD recovery_attempts :given_back',
      ExpressionAttributeValues: { ':given_back': -1 },
    },
  };
}
