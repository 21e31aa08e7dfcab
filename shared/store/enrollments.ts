import { ReturnValuesOnConditionCheckFailure } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { CalendarOccasion, Enrollment, EnrollmentStatus, StepTurn } from '../model/enrollment.ts';
import type { Tenant } from '../model/tenant.ts';
import { campaignSk } from './campaigns.ts';
import { BATCH_GET_LIMIT, isConditionFailure, itemAtConditionFailure, isTransactionConflict, putVersioned, type Item } from './dynamo.ts';
import { customerOwnerPartition, epochSeconds, tenantKey, tenantPk } from './keys.ts';
import { fetchItems } from './list-query.ts';
import { entityOf, storedItem } from './items.ts';
import type { TransactItem } from './transactions.ts';
import { queryTenant } from './shard-reads.ts';

const { db, tableName } = runtime;

/**
 * Enrollments sort under their customer and failure, so "this payment's enrollments" and "this
 * customer's" are key-range queries. Both campaign indexes group them by campaign: gsi3 by status,
 * then enrollment time (pause, activate, archive, and the list filtered by status), gsi2 by enrollment
 * time alone (the list across statuses: one range instead of a merge of four). The key makes "at most
 * once per failure per campaign" a write condition.
 */
const enrollmentSk = (customerId: string, subject: string, campaignId: string): string => `ENROLLMENT#${customerId}#${subject}#${campaignId}`;
export const byCampaignPk = (tenant: Tenant, campaignId: string): string => `${tenantPk(tenant)}#ENROLLMENTS#${campaignId}`;

/** Names an enrollment: its campaign, customer and what it is for (a failure, a calendar occasion, or a manual enrollment without either). */
export type EnrollmentRef = Pick<Enrollment, 'customer_id' | 'payment_id' | 'campaign_id'> & { calendar?: Pick<CalendarOccasion, 'key'> | null };

export const enrollmentSubject = (enrollment: Omit<EnrollmentRef, 'campaign_id'>): string =>
  enrollment.payment_id ?? enrollment.calendar?.key ?? `manual:${enrollment.customer_id}`;

function toItem(tenant: Tenant, enrollment: Enrollment) {
  const sk = enrollmentSk(enrollment.customer_id, enrollmentSubject(enrollment), enrollment.campaign_id);
  return storedItem(tenantKey(tenant, sk), 'enrollment', enrollment, {
    // Owned by the customer: erasure finds and deletes it with the rest of their items (the card it holds is personal).
    gsi1pk: customerOwnerPartition(tenant, enrollment.customer_id),
    gsi1sk: sk,
    gsi2pk: byCampaignPk(tenant, enrollment.campaign_id),
    gsi2sk: `${enrollment.enrolled_at}#${enrollment.id}`,
    gsi3pk: byCampaignPk(tenant, enrollment.campaign_id),
    gsi3sk: `${enrollment.status}#${enrollment.enrolled_at}#${enrollment.id}`,
  });
}

export const enrollmentFromItem = (item: Item): Enrollment => entityOf<Enrollment>(item);

export function enrollmentKey(tenant: Tenant, enrollment: EnrollmentRef) {
  return tenantKey(tenant, enrollmentSk(enrollment.customer_id, enrollmentSubject(enrollment), enrollment.campaign_id));
}

export async function findEnrollment(tenant: Tenant, key: EnrollmentRef): Promise<Enrollment | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: enrollmentKey(tenant, key), ConsistentRead: true }));
  return Item ? enrollmentFromItem(Item) : undefined;
}

/**
 * Which of these enrollments exist, by their sort keys: one batched read instead of a failed
 * conditional write for every customer the daily calendar scan sees again. Eventually consistent;
 * an enrollment this misses still meets its write condition.
 */
export async function existingEnrollments(tenant: Tenant, refs: readonly EnrollmentRef[]): Promise<Set<string>> {
  const keys = [...new Map(refs.map((ref) => [enrollmentKey(tenant, ref).sk, enrollmentKey(tenant, ref)])).values()];
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) {
    for (const item of await fetchItems(keys.slice(i, i + BATCH_GET_LIMIT))) found.add(item.sk as string);
  }
  return found;
}

/** A customer's enrollments, or those of one of their failures. */
export async function enrollmentsOf(tenant: Tenant, customerId: string, paymentId?: string): Promise<Enrollment[]> {
  const items = await queryTenant(tenant, { prefix: `ENROLLMENT#${customerId}#${paymentId === undefined ? '' : `${paymentId}#`}` }, { ConsistentRead: true });
  return items.map(enrollmentFromItem);
}

/**
 * The next steps of the customer's other running enrollments in a campaign: what a step's turn for
 * the campaign's message slot is decided against. One Query, as a customer's enrollments share their
 * shard and sort together; the filter keeps this campaign's running ones (the read is billed for all
 * of the customer's, a few small items). Eventually consistent: a stale answer shows a sibling's step
 * as not yet run, which costs the step one more wait, never the order.
 */
export async function siblingTurns(tenant: Tenant, enrollment: Pick<Enrollment, 'id' | 'customer_id' | 'campaign_id'>): Promise<StepTurn[]> {
  const items = await queryTenant(
    tenant,
    { prefix: `ENROLLMENT#${enrollment.customer_id}#` },
    {
      FilterExpression: '#campaign = :campaign AND #status = :active AND #id <> :self',
      ProjectionExpression: '#id, #due',
      ExpressionAttributeNames: { '#campaign': 'campaign_id', '#status': 'status', '#id': 'id', '#due': 'next_step_at' },
      ExpressionAttributeValues: { ':campaign': enrollment.campaign_id, ':active': 'active', ':self': enrollment.id },
    },
  );
  return items.map((item) => ({ id: item.id as string, next_step_at: (item.next_step_at as string | null | undefined) ?? null }));
}

export interface EnrollmentPage {
  enrollments: Enrollment[];
  /** Where the next page starts; null after the last. */
  cursor: Record<string, unknown> | null;
}

/**
 * One page of a campaign's enrollments still running, for sweeps that continue where the last one
 * stopped (the index is eventually consistent: callers re-read each one before changing it).
 */
export async function runningEnrollmentsPage(tenant: Tenant, campaignId: string, cursor: Record<string, unknown> | null, limit: number): Promise<EnrollmentPage> {
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk AND begins_with(gsi3sk, :active)',
      ExpressionAttributeValues: { ':pk': byCampaignPk(tenant, campaignId), ':active': 'active#' },
      ExclusiveStartKey: cursor ?? undefined,
      Limit: limit,
    }),
  );
  return { enrollments: (page.Items ?? []).map(enrollmentFromItem), cursor: page.LastEvaluatedKey ?? null };
}

export function newEnrollmentWrite(tenant: Tenant, enrollment: Enrollment): TransactItem {
  return { Put: { TableName: tableName, Item: toItem(tenant, enrollment), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** What the customer's message slot in a campaign held before a claim: put back when the claimed message is not sent. */
export type MessageSlot = { enrollment_id: string; messaged_at: string } | null;

const slotOf = (item: Item): NonNullable<MessageSlot> => {
  const { enrollment_id, messaged_at } = entityOf<NonNullable<MessageSlot>>(item, ['expires_at']);
  return { enrollment_id, messaged_at };
};

/** The holder a claim replaced, as the claim stored it: none when the slot was new. */
const replacedSlotOf = (item: Item): MessageSlot =>
  typeof item.previous_enrollment_id === 'string' && typeof item.previous_messaged_at === 'string'
    ? { enrollment_id: item.previous_enrollment_id, messaged_at: item.previous_messaged_at }
    : null;

const messageSlotSk = (enrollment: Pick<Enrollment, 'customer_id' | 'campaign_id'>): string => `MESSAGED#${enrollment.customer_id}#${enrollment.campaign_id}`;

/**
 * Takes the customer's message slot in a campaign for this enrollment: granted when the campaign has
 * not messaged them within `spacingHours`, or when this enrollment holds it (its own steps, a re-run
 * after a crash). Conditional, so sequences of several failures due at once send one message between
 * them. Owned by the customer: erasure removes it with their other items. Undefined when refused.
 * The slot keeps the holder it replaced, so when the SDK resends a claim whose answer was lost, the
 * resend (refused as this very claim) still learns what to give the slot back to.
 */
export async function claimMessageSlot(tenant: Tenant, enrollment: Enrollment, now: Date, spacingHours: number): Promise<{ previous: MessageSlot } | undefined> {
  const sk = messageSlotSk(enrollment);
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: tenantKey(tenant, sk),
        // Gone by TTL a day after it stops mattering: one per customer and campaign would otherwise outlive both.
        UpdateExpression:
          'SET entity = :entity, gsi1pk = :owner, gsi1sk = :sk, enrollment_id = :enrollment, messaged_at = :now, expires_at = :expires, ' +
          'previous_enrollment_id = if_not_exists(enrollment_id, :none), previous_messaged_at = if_not_exists(messaged_at, :none)',
        ConditionExpression: '(attribute_not_exists(pk) OR enrollment_id = :enrollment OR messaged_at <= :spaced) AND NOT (enrollment_id = :enrollment AND messaged_at = :now)',
        ExpressionAttributeValues: {
          ':entity': 'campaign_message_slot',
          ':owner': customerOwnerPartition(tenant, enrollment.customer_id),
          ':sk': sk,
          ':enrollment': enrollment.id,
          ':now': now.toISOString(),
          ':spaced': new Date(now.getTime() - spacingHours * 3_600_000).toISOString(),
          ':expires': epochSeconds(now) + (spacingHours + 24) * 3600,
          ':none': null,
        },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
      }),
    );
    return { previous: Attributes ? slotOf(Attributes) : null };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const stored = itemAtConditionFailure(error);
    const ours = stored?.enrollment_id === enrollment.id && stored.messaged_at === now.toISOString();
    return ours ? { previous: replacedSlotOf(stored) } : undefined;
  }
}

/** Gives the slot back as it was when the message it was claimed for was not sent (no address, refused), unless it moved on since. */
export async function restoreMessageSlot(tenant: Tenant, enrollment: Enrollment, claimedAt: Date, previous: MessageSlot): Promise<void> {
  const claimed = { ':enrollment': enrollment.id, ':claimed': claimedAt.toISOString() };
  const Key = tenantKey(tenant, messageSlotSk(enrollment));
  const ConditionExpression = 'enrollment_id = :enrollment AND messaged_at = :claimed';
  try {
    await db.send(
      previous === null
        ? new DeleteCommand({ TableName: tableName, Key, ConditionExpression, ExpressionAttributeValues: claimed })
        : new UpdateCommand({
            TableName: tableName,
            Key,
            UpdateExpression: 'SET enrollment_id = :previous_enrollment, messaged_at = :previous_at',
            ConditionExpression,
            ExpressionAttributeValues: { ...claimed, ':previous_enrollment': previous.enrollment_id, ':previous_at': previous.messaged_at },
          }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * One enrollment change on its own (a step's claim, a hold): a conditional put, not a one-item
 * transaction, which DynamoDB bills twice over. False when the enrollment moved on since `readVersion`
 * or a transaction on it was under way; true when the write that failed was our own lost try's.
 */
export async function saveEnrollment(tenant: Tenant, enrollment: Enrollment, readVersion: number): Promise<boolean> {
  try {
    return await putVersioned(db, tableName, toItem(tenant, enrollment), readVersion);
  } catch (error) {
    if (isTransactionConflict(error)) return false;
    throw error;
  }
}

export function saveEnrollmentWrite(tenant: Tenant, enrollment: Enrollment, readVersion: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: toItem(tenant, enrollment),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': readVersion },
    },
  };
}

/**
 * Deletes an enrollment with its customer's erasure (it holds their card), as it was read (a concurrent
 * change fails the transaction, to be read again), and moves its campaign's counts with it: out of its
 * status, into `erased_count`, so stats and list totals keep matching the enrollments left.
 */
export function eraseEnrollmentWrites(tenant: Tenant, enrollment: Enrollment): TransactItem[] {
  return [
    {
      Delete: {
        TableName: tableName,
        Key: enrollmentKey(tenant, enrollment),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': enrollment.version },
      },
    },
    campaignCountersWrite(tenant, enrollment.campaign_id, { erasedFrom: enrollment.status }),
  ];
}

export interface CampaignOutcomeCounts {
  enrolled?: number;
  active?: number;
  recovered?: number;
  terminal?: number;
  /** How an enrollment ended, counted by status (`completed_count`…), for the enrollment lists' totals. */
  ended?: Exclude<EnrollmentStatus, 'active'>;
  /** An enrollment in this status was deleted with its customer's erasure: out of that count, into `erased_count`. */
  erasedFrom?: EnrollmentStatus;
  recoveredAmount?: { currency: string; amount: number };
  /** The campaign has no stats currency yet: this recovery's becomes it. */
  setPrimaryCurrency?: boolean;
}

/** Moves a campaign's stats counters in the transaction that changes the enrollment (never recomputed by scanning). */
export function campaignCountersWrite(tenant: Tenant, campaignId: string, counts: CampaignOutcomeCounts): TransactItem {
  const adds: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const add = (attribute: string, value: number | undefined) => {
    if (!value) return;
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    adds.push(`#${attribute} :${attribute}`);
  };
  add('enrolled_count', counts.enrolled);
  add('active_count', counts.active);
  add('recovered_count', counts.recovered);
  add('terminal_count', counts.terminal);
  if (counts.ended) add(`${counts.ended}_count`, 1);
  if (counts.erasedFrom) {
    add(`${counts.erasedFrom}_count`, -1);
    add('erased_count', 1);
  }
  let set = '';
  if (counts.recoveredAmount) {
    names['#amounts'] = 'recovered_amounts';
    names['#currency'] = counts.recoveredAmount.currency;
    values[':amount'] = counts.recoveredAmount.amount;
    values[':zero'] = 0;
    set = ' SET #amounts.#currency = if_not_exists(#amounts.#currency, :zero) + :amount';
    if (counts.setPrimaryCurrency) {
      names['#primary'] = 'primary_currency';
      values[':currency'] = counts.recoveredAmount.currency;
      set += ', #primary = :currency';
    }
  }
  return {
    Update: {
      TableName: tableName,
      Key: tenantKey(tenant, campaignSk(campaignId)),
      UpdateExpression: `${adds.length ? `ADD ${adds.join(', ')}` : ''}${set}`.trim(),
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}
