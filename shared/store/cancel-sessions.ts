import { ReturnValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { createHash } from 'node:crypto';
import { COMPLETED_TOKEN_SECONDS, expiryAfter, isExpired } from '../model/cancel-session.ts';
import type { AdvanceChange, CancelCompletion, CancelSession } from '../model/cancel-session-schema.ts';
import type { Outcome } from '../model/cancel-session.ts';
import { tenantOf, type Tenant } from '../model/tenant.ts';
import { batchWriteAll, isConditionFailure, queryAll, storedAsWritten, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { epochSeconds, tenantPk } from './keys.ts';
import { transact, type TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * Cancel sessions live outside any tenant partition, keyed by the SHA-256 of their token: the token is
 * the only thing a caller presents (§5 rule 6), so it must find the session before the tenant is
 * known. Two items per token: the session (`SESSION`) while it runs, and a small tombstone
 * (`COMPLETED`) once it completed, which is how a used token answers 400 rather than 404 on advance
 * and complete. Both carry `expires_at`, the table's TTL attribute.
 */
const sessionPk = (tokenHash: string): string => `CANCELSESSION#${tokenHash}`;
const SESSION_SK = 'SESSION';
const COMPLETED_SK = 'COMPLETED';

/**
 * The running sessions of one subscriber, by the customer id the widget sent (the merchant's processor
 * id, or our cus_ id), so erasure finds them without a scan. An index entry of the session item itself
 * (gsi1), not an item of its own: it lives exactly as long as the session, whose idle hour every call
 * restarts, and costs no write. Hashed: a fixed-length key whatever the widget sent.
 */
const subscriberSessionsPartition = (tenant: Tenant, customerId: string): string =>
  `${tenantPk(tenant)}#CANCELSESSIONS#${createHash('sha256').update(customerId, 'utf8').digest('hex')}`;

const toItem = (tokenHash: string, session: CancelSession) =>
  storedItem({ pk: sessionPk(tokenHash), sk: SESSION_SK }, 'cancel_session', session, {
    gsi1pk: subscriberSessionsPartition(tenantOf(session), session.customer_id),
    gsi1sk: session.session_id,
  });

const fromItem = (item: Item): CancelSession => entityOf<CancelSession>(item);

/** Only where no session is; the token is fresh, so an item already there is our own put whose answer was lost. */
export async function insertSession(tokenHash: string, session: CancelSession): Promise<void> {
  const item = toItem(tokenHash, session);
  try {
    await db.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (error) {
    if (isConditionFailure(error) && (await storedAsWritten(db, tableName, item))) return;
    throw error;
  }
}

/** What a completed session's tombstone keeps: enough to answer a resend of its completion as the completion was answered. */
export interface CompletedSession {
  sessionId: string;
  /** Absent on tombstones written before they kept it. */
  outcome?: Outcome;
  reason?: string;
  allowedOrigins: string[];
}

/** What a token names right now: a live session, a completed one, or neither. Expired items count as absent. */
export interface SessionState {
  session?: CancelSession;
  completed?: CompletedSession;
}

/** One consistent query reads both items of the token. */
export async function readSessionState(tokenHash: string, now: Date): Promise<SessionState> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': sessionPk(tokenHash) },
      ConsistentRead: true,
    }),
  );
  const live = Items.filter((item) => typeof item.expires_at === 'number' && !isExpired(item.expires_at, now));
  const session = live.find((item) => item.sk === SESSION_SK);
  const completed = live.find((item) => item.sk === COMPLETED_SK);
  return {
    session: session ? fromItem(session) : undefined,
    completed: completed && {
      sessionId: completed.session_id as string,
      outcome: completed.outcome as Outcome | undefined,
      reason: completed.reason as string | undefined,
      allowedOrigins: (completed.allowed_origins as string[] | undefined) ?? [],
    },
  };
}

/** `expires_at > now` in epoch seconds is exactly "not expired" for whole-second expiries (see isExpired). */
const notExpired = 'expires_at > :now';

/** Starts the idle hour again (every call does, §8) and returns the session; undefined if it is gone or expired. */
export async function touchSession(tokenHash: string, now: Date): Promise<CancelSession | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: sessionPk(tokenHash), sk: SESSION_SK },
        UpdateExpression: 'SET last_activity_at = :at, expires_at = :expires',
        ConditionExpression: `attribute_exists(pk) AND ${notExpired}`,
        ExpressionAttributeValues: { ':at': now.toISOString(), ':expires': expiryAfter(now), ':now': epochSeconds(now) },
        ReturnValues: ReturnValue.ALL_NEW,
      }),
    );
    return Attributes ? fromItem(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Appends one response, only if the session is still at the step it was read at and not expired.
 * Two advances racing on one session cannot both pass that condition, so neither overwrites the
 * other: the loser reads again and appends after the winner. Undefined when the condition failed,
 * unless what failed it was this very write (the SDK resending an update whose answer was lost):
 * then the session as it wrote it, so the response is not appended a second time.
 */
export async function advanceSessionWrite(tokenHash: string, read: CancelSession, change: AdvanceChange, now: Date): Promise<CancelSession | undefined> {
  const offer = change.acceptedOffer;
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: sessionPk(tokenHash), sk: SESSION_SK },
        UpdateExpression: [
          'SET responses = list_append(responses, :response), current_step = :next, last_activity_at = :at, expires_at = :expires',
          ...(offer ? [', accepted_offer_json = :offer, accepted_offer_step = :offer_step'] : []),
        ].join(''),
        ConditionExpression: `current_step = :read_step AND ${notExpired}`,
        ExpressionAttributeValues: {
          ':response': [change.response],
          ':next': read.current_step + 1,
          ':read_step': read.current_step,
          ':at': now.toISOString(),
          ':expires': expiryAfter(now),
          ':now': epochSeconds(now),
          ...(offer ? { ':offer': offer.json, ':offer_step': offer.step } : {}),
        },
        ReturnValues: ReturnValue.ALL_NEW,
      }),
    );
    return Attributes ? fromItem(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return appendedBy(tokenHash, read, change);
    throw error;
  }
}

/** The session, if its last response is `change`'s (the same step and time to the millisecond) right after the step it was read at. */
async function appendedBy(tokenHash: string, read: CancelSession, change: AdvanceChange): Promise<CancelSession | undefined> {
  const { Item: item } = await db.send(new GetCommand({ TableName: tableName, Key: { pk: sessionPk(tokenHash), sk: SESSION_SK }, ConsistentRead: true }));
  if (!item) return undefined;
  const stored = fromItem(item);
  const last = stored.responses.at(-1);
  const mine = change.response;
  const ours =
    stored.current_step === read.current_step + 1 && last?.step === mine.step && last.recorded_at === mine.recorded_at && last.response_json === mine.response_json;
  return ours ? stored : undefined;
}

/**
 * Ends a session: the session item deleted and the tombstone written, with the outcome and reason it
 * completed with (no ids, no free text). `readStep` conditions the
 * delete on the step the completion was decided at (a racing advance or complete fails it); null
 * deletes whatever is there, for a completion that is already decided (consuming after a failure,
 * and the dead-letter replay).
 */
export function consumeSessionWrites(completion: CancelCompletion, readStep: number | null, now: Date): TransactItem[] {
  const { token_hash: tokenHash, session } = completion;
  const key = { pk: sessionPk(tokenHash), sk: SESSION_SK };
  return [
    {
      Delete: {
        TableName: tableName,
        Key: key,
        ...(readStep === null
          ? {}
          : { ConditionExpression: 'current_step = :read_step', ExpressionAttributeValues: { ':read_step': readStep } }),
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          pk: sessionPk(tokenHash),
          sk: COMPLETED_SK,
          entity: 'cancel_session_completed',
          session_id: session.session_id,
          merchant_id: session.merchant_id,
          environment: session.environment,
          outcome: completion.outcome,
          reason: completion.reason,
          allowed_origins: session.allowed_origins,
          completed_at: now.toISOString(),
          expires_at: expiryAfter(now, COMPLETED_TOKEN_SECONDS),
        },
      },
    },
  ];
}

/** The session consumed on its own, when the rest of its completion could not be stored (it went to the queue). */
export async function consumeSession(completion: CancelCompletion, now: Date): Promise<void> {
  const outcome = await transact(consumeSessionWrites(completion, null, now));
  if (!outcome.committed) throw new Error(`Cancel session ${completion.session.session_id} could not be consumed: the transaction raced another`);
}

/**
 * Deletes the running sessions the widget started for any of these customer ids (erasure: the ids the
 * subscriber is known by), with their ids and answers. Their tokens then answer 404, as an expired
 * one does; nothing is left in their place. Answers how many were deleted.
 */
export async function deleteSubscriberSessions(tenant: Tenant, customerIds: readonly string[]): Promise<number> {
  const pages = await Promise.all(
    [...new Set(customerIds)].map((customerId) =>
      queryAll(db, {
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :subscriber',
        ExpressionAttributeValues: { ':subscriber': subscriberSessionsPartition(tenant, customerId) },
        ProjectionExpression: 'pk, sk',
      }),
    ),
  );
  const keys = pages.flat();
  await batchWriteAll(db, tableName, keys.map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } })));
  return keys.length;
}
