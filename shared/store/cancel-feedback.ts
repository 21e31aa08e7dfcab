import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { Tenant } from '../model/tenant.ts';
import { isConditionFailure, queryAll, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { customerOwnerPartition, tenantKey, tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';
import type { CancelFeedback, OfferApplication } from '../model/cancel-feedback.ts';

const { db, tableName } = runtime;

/**
 * Feedback of completed cancel sessions, one item per session under the tenant, keyed by the session
 * id: a completion written twice (the request and the dead-letter replay, or two replays) meets the
 * `attribute_not_exists` condition and is stored once. Feedback about a known customer carries the
 * customer's owner partition in gsi1 (keys.ts), so erasing the customer finds it.
 */
const FEEDBACK_PREFIX = 'CANCELFEEDBACK#';
export const feedbackSk = (sessionId: string): string => `${FEEDBACK_PREFIX}${sessionId}`;

const fromItem = (item: Item): CancelFeedback => entityOf<CancelFeedback>(item);

/** Position of this write in a transaction's failed conditions means: this session's feedback exists already. */
export function recordFeedbackWrite(tenant: Tenant, feedback: CancelFeedback): TransactItem {
  const owner =
    feedback.customer_id === null ? {} : { gsi1pk: customerOwnerPartition(tenant, feedback.customer_id), gsi1sk: feedbackSk(feedback.session_id) };
  return {
    Put: {
      TableName: tableName,
      Item: storedItem(tenantKey(tenant, feedbackSk(feedback.session_id)), 'cancel_feedback', feedback, owner),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The item at a session's feedback key, whatever it is (the replay checks it really is this session's). */
export async function findFeedbackItem(tenant: Tenant, sessionId: string): Promise<Item | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: tenantKey(tenant, feedbackSk(sessionId)), ConsistentRead: true }),
  );
  return Item;
}

export async function findFeedback(tenant: Tenant, sessionId: string): Promise<CancelFeedback | undefined> {
  const item = await findFeedbackItem(tenant, sessionId);
  return item?.entity === 'cancel_feedback' ? fromItem(item) : undefined;
}

/** The tenant's feedback, all of it (cancel-feedback-listing.ts orders it). */
export async function listFeedback(tenant: Tenant): Promise<CancelFeedback[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': FEEDBACK_PREFIX },
  });
  return items.map(fromItem);
}

/** Records what became of the accepted offer, once: only while it is still pending. False when it no longer was. */
export async function saveOfferApplication(tenant: Tenant, sessionId: string, application: OfferApplication): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, feedbackSk(sessionId)),
        UpdateExpression: 'SET offer_application = :application',
        ConditionExpression: 'offer_application.#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':application': application, ':pending': 'pending' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
