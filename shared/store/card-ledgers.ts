import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../runtime.ts';
import type { CardLedger, LedgerBlock, LedgerBucket, LedgerCounter } from '../model/card-ledger.ts';
import type { Tenant } from '../model/tenant.ts';
import { customerOwnerPartition, epochSeconds, tenantKey, tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

/**
 * One item per card the tenant's customers pay with (docs/data-model.md, "Card ledger"): attempts per
 * hour and per day as one attribute each (`n_<counter>_<h|d><index>`), the blocks the networks' answers
 * set (`b_<rule>`), and `version`. The card is named by a hash, never by its digits; the item sits in
 * its customer's owner partition (`gsi1`), so erasure deletes it with them.
 */
const ledgerSk = (tenant: Tenant, identity: string): string => `CARDLEDGER#${createHash('sha256').update(`${tenantPk(tenant)}|${identity}`).digest('hex')}`;

/** Counts matter for 30 days; a block until the card changes for as long as a card is kept on file. */
const COUNTS_KEPT_SECONDS = 31 * 86_400;
const BLOCK_KEPT_SECONDS = 400 * 86_400;

const BUCKET_ATTRIBUTE = /^n_(attempts|merchant_reattempts|customer_reattempts)_([hd])(\d+)$/;
const bucketAttribute = (bucket: Pick<LedgerBucket, 'counter' | 'unit' | 'index'>): string => `n_${bucket.counter}_${bucket.unit}${bucket.index}`;
const blockAttribute = (rule: string): string => `b_${rule}`;

interface StoredBlock {
  until: string | null;
  card_expiry: string | null;
  set_at: string;
}

function ledgerFromItem(item: Record<string, unknown> | undefined): CardLedger {
  if (!item) return { buckets: [], blocks: [], version: 0 };
  const buckets: LedgerBucket[] = [];
  const blocks: LedgerBlock[] = [];
  for (const [name, value] of Object.entries(item)) {
    const bucket = BUCKET_ATTRIBUTE.exec(name);
    if (bucket) buckets.push({ counter: bucket[1] as LedgerCounter, unit: bucket[2] as 'h' | 'd', index: Number(bucket[3]), count: Number(value) });
    else if (name.startsWith('b_')) {
      const stored = value as StoredBlock;
      blocks.push({ rule: name.slice(2), until: stored.until, cardExpiry: stored.card_expiry, setAt: stored.set_at });
    }
  }
  return { buckets, blocks, version: Number(item.version ?? 0) };
}

const storedBlock = (block: LedgerBlock): StoredBlock => ({ until: block.until, card_expiry: block.cardExpiry, set_at: block.setAt });

export async function findCardLedger(tenant: Tenant, identity: string): Promise<CardLedger> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: tenantKey(tenant, ledgerSk(tenant, identity)), ConsistentRead: true }));
  return ledgerFromItem(Item);
}

const expiresAt = (blocks: readonly LedgerBlock[], now: Date): number =>
  epochSeconds(now) + (blocks.some((block) => block.until === null) ? BLOCK_KEPT_SECONDS : COUNTS_KEPT_SECONDS);

/**
 * The ledger as a claim left it, in the claim's transaction: written whole (stale buckets and blocks
 * dropped) on condition that it is still the version the claim judged, so two claims on one card
 * never both pass a limit: the second reads again and is judged again.
 */
export function saveCardLedgerWrite(tenant: Tenant, identity: string, customerId: string, ledger: CardLedger, now: Date): TransactItem {
  const sk = ledgerSk(tenant, identity);
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...tenantKey(tenant, sk),
        entity: 'card_ledger',
        gsi1pk: customerOwnerPartition(tenant, customerId),
        gsi1sk: sk,
        version: ledger.version + 1,
        expires_at: expiresAt(ledger.blocks, now),
        ...(ledger.blocks.some((block) => block.until === null) ? { keep_until: expiresAt(ledger.blocks, now) } : {}),
        ...Object.fromEntries(ledger.buckets.map((bucket) => [bucketAttribute(bucket), bucket.count])),
        ...Object.fromEntries(ledger.blocks.map((block) => [blockAttribute(block.rule), storedBlock(block)])),
      },
      ...(ledger.version === 0
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': ledger.version } }),
    },
  };
}

/**
 * What a processor reports of the card (a failure, a retry's answer), in the transaction that records
 * it: counted and blocked unconditionally, since it already happened; the version moves, so a claim
 * judged on the ledger before it is judged again.
 */
export function recordOnCardWrite(tenant: Tenant, identity: string, customerId: string, change: { buckets: LedgerBucket[]; blocks: LedgerBlock[] }, now: Date): TransactItem {
  const sk = ledgerSk(tenant, identity);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':one': 1,
    ':entity': 'card_ledger',
    ':owner': customerOwnerPartition(tenant, customerId),
    ':sk': sk,
  };
  const adds = ['version :one'];
  change.buckets.forEach((bucket, i) => {
    names[`#n${i}`] = bucketAttribute(bucket);
    values[`:n${i}`] = bucket.count;
    adds.push(`#n${i} :n${i}`);
  });
  const sets = ['entity = :entity', 'gsi1pk = :owner', 'gsi1sk = :sk'];
  change.blocks.forEach((block, i) => {
    names[`#b${i}`] = blockAttribute(block.rule);
    values[`:b${i}`] = storedBlock(block);
    sets.push(`#b${i} = :b${i}`);
  });
  // A block until the card changes keeps the item (keep_until) past the counts' 31 days.
  if (change.blocks.some((block) => block.until === null)) {
    values[':long'] = expiresAt(change.blocks, now);
    sets.push('keep_until = :long', 'expires_at = :long');
  } else {
    values[':short'] = expiresAt([], now);
    sets.push('expires_at = if_not_exists(keep_until, :short)');
  }
  return {
    Update: {
      TableName: tableName,
      Key: tenantKey(tenant, sk),
      UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
}
