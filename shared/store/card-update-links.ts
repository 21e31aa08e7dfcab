import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import { linkExpiresAt, type CardUpdateLink } from '../model/card-update-link.ts';
import { isConditionFailure, storedAsWritten } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * Card-update links live outside any tenant partition, keyed by the SHA-256 of their token: the token
 * is all the customer's browser presents, so it must find the link before the tenant is known. The
 * item holds ids only (no personal data); `expires_at` is the table's TTL attribute.
 */
const linkKey = (tokenHash: string) => ({ pk: `CARDUPDATE#${tokenHash}`, sk: 'LINK' });

/** The processor's events name a link by its id (Checkout's metadata), never by its token. */
const linkIdKey = (linkId: string) => ({ pk: `CARDUPDATE#ID#${linkId}`, sk: 'TOKEN' });

/** Only where no link is; the token is fresh, so an item already there is our own put whose answer was lost. */
export async function insertLink(tokenHash: string, link: CardUpdateLink): Promise<void> {
  const expires = { expires_at: linkExpiresAt(link.issued_at) };
  const item = storedItem(linkKey(tokenHash), 'card_update_link', link, expires);
  try {
    await db.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (error) {
    if (!isConditionFailure(error) || !(await storedAsWritten(db, tableName, item))) throw error;
  }
  await db.send(new PutCommand({ TableName: tableName, Item: { ...linkIdKey(link.link_id), entity: 'card_update_link_id', token_hash: tokenHash, ...expires } }));
}

export async function findLinkById(linkId: string): Promise<CardUpdateLink | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: linkIdKey(linkId), ConsistentRead: true }));
  return typeof Item?.token_hash === 'string' ? findLink(Item.token_hash) : undefined;
}

export async function findLink(tokenHash: string): Promise<CardUpdateLink | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: linkKey(tokenHash), ConsistentRead: true }));
  return Item ? entityOf<CardUpdateLink>(Item, ['expires_at']) : undefined;
}

/**
 * Records the first opening, in the transaction that records its funnel event: the condition lets one
 * request make it (the funnel counts a link once), and the transaction's request token lets the SDK's
 * resend after a lost answer succeed instead of failing on its own write.
 */
export function markLinkOpenedWrite(tokenHash: string, at: Date): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: linkKey(tokenHash),
      UpdateExpression: 'SET opened_at = :at',
      ConditionExpression: 'attribute_exists(pk) AND opened_at = :never',
      ExpressionAttributeValues: { ':at': at.toISOString(), ':never': null },
    },
  };
}
