import { randomUUID } from 'node:crypto';
import { ReturnValuesOnConditionCheckFailure } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure, itemAtConditionFailure } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { epochSeconds, tenantKey } from './keys.ts';
import { queryTenant } from './shard-reads.ts';

const { db, tableName } = runtime;

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** The body is sealed: it shows a secret that only the API key which made the request may see again. */
  sealed?: boolean;
}

export type IdempotencyClaim =
  | { outcome: 'claimed' }
  | { outcome: 'in_progress'; fingerprint: string }
  | { outcome: 'completed'; fingerprint: string; response: StoredResponse };

const sk = (key: string): string => `IDEMPOTENCY#${key}`;

/** One remembered request: claimed (in_progress, locked while it runs) or completed with its response. */
interface IdempotencyRecord {
  fingerprint: string;
  /** Which execution claimed it: a write of that execution whose answer was lost finds its own claim on the SDK's resend. */
  claim_id?: string;
  state: 'in_progress' | 'completed';
  locked_until?: string;
  retain_until: string;
  response?: StoredResponse;
}

/**
 * Claims an idempotency key for one execution (`claimId`, unique to it). The claim succeeds when no
 * live record exists, or when a previous execution died without finishing and its lock has lapsed;
 * otherwise the existing record comes back with the failed condition, with no extra read. A claim
 * whose answer was lost fails its condition on the SDK's resend: it is recognised by its claim id,
 * not reported as another request holding the key (which would answer 409 until the lock lapsed).
 */
export async function claimIdempotencyKey(
  tenant: Tenant,
  key: string,
  fingerprint: string,
  now: Date,
  retainUntil: Date,
  lockUntil: Date,
  claimId: string = randomUUID(),
): Promise<IdempotencyClaim> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: storedItem<IdempotencyRecord>(
          tenantKey(tenant, sk(key)),
          'idempotency_record',
          { fingerprint, claim_id: claimId, state: 'in_progress', locked_until: lockUntil.toISOString(), retain_until: retainUntil.toISOString() },
          { expires_at: epochSeconds(retainUntil) },
        ),
        ConditionExpression:
          'attribute_not_exists(pk) OR retain_until <= :now OR (#state = :in_progress AND locked_until <= :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':now': now.toISOString(), ':in_progress': 'in_progress' },
        ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
      }),
    );
    return { outcome: 'claimed' };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = entityOf<IdempotencyRecord>(itemAtConditionFailure(error) ?? {}, ['expires_at']);
    if (existing.state === 'in_progress' && existing.claim_id === claimId) return { outcome: 'claimed' };
    if (existing.state === 'completed' && existing.response) {
      return { outcome: 'completed', fingerprint: existing.fingerprint, response: existing.response };
    }
    return { outcome: 'in_progress', fingerprint: existing.fingerprint };
  }
}

/**
 * Stores the execution's response. Its resend after a lost answer finds the record completed by this
 * execution (`claimId`) and is done; a record completed by another fails as before.
 */
export async function recordIdempotentResponse(tenant: Tenant, key: string, fingerprint: string, response: StoredResponse, claimId?: string): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, sk(key)),
        UpdateExpression: 'SET #state = :completed, #response = :response REMOVE locked_until',
        ConditionExpression: 'fingerprint = :fingerprint AND #state = :in_progress',
        ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
        ExpressionAttributeValues: {
          ':completed': 'completed',
          ':response': response,
          ':fingerprint': fingerprint,
          ':in_progress': 'in_progress',
        },
        ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
      }),
    );
  } catch (error) {
    const existing = isConditionFailure(error) ? itemAtConditionFailure(error) : undefined;
    if (claimId !== undefined && existing?.state === 'completed' && existing.claim_id === claimId) return;
    throw error;
  }
}

/** Lets a retry run the operation again after a failure that produced no result worth replaying. */
export async function releaseIdempotencyKey(tenant: Tenant, key: string, fingerprint: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: tenantKey(tenant, sk(key)),
        ConditionExpression: 'fingerprint = :fingerprint AND #state = :in_progress',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':fingerprint': fingerprint, ':in_progress': 'in_progress' },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Forgets remembered requests whose key or stored response contains any of these values (erasure).
 * In a response body a value is matched as a whole JSON string, the way a field holding it is written.
 * Records live 24 h, so this reads at most a day of the tenant's idempotent requests.
 */
export async function deleteIdempotencyRecordsContaining(tenant: Tenant, values: readonly string[]): Promise<number> {
  const present = [...new Set(values.filter((value) => value.length > 0))];
  if (present.length === 0) return 0;
  const inBody = present.map((value) => JSON.stringify(value));
  const prefix = sk('');
  let deleted = 0;
  const records = await queryTenant(
    tenant,
    { prefix },
    { ProjectionExpression: 'sk, #response.#body', ExpressionAttributeNames: { '#response': 'response', '#body': 'body' } },
  );
  for (const item of records) {
    const key = (item.sk as string).slice(prefix.length);
    const body = ((item.response as { body?: string } | undefined)?.body as string | undefined) ?? '';
    if (!present.some((value) => key.includes(value)) && !inBody.some((needle) => body.includes(needle))) continue;
    await db.send(new DeleteCommand({ TableName: tableName, Key: tenantKey(tenant, item.sk as string) }));
    deleted += 1;
  }
  return deleted;
}
