/**
 * DynamoDB Local runs on the JVM, whose compilers warm each code path as it is used: a transaction
 * took 10.5 ms over its first 50 calls and 3.5 ms after 2,000 (median, same item shapes). DynamoDB in
 * AWS is a warm fleet, so before the cold starts are measured the engine runs every kind of request
 * the functions make, on scratch items of their own partition: otherwise a function would be charged
 * for the engine's warm-up of the operations it uses and the floor's `GetItem` does not (the key
 * lookup every REST function starts with makes `GetItem` the engine's warmest path).
 */
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../shared/store/dynamo.ts';
import { GLOBAL_INDEXES } from '../shared/store/table-schema.ts';

const ROUNDS_PER_WORKER = 400;
const WORKERS = 4;
const ITEMS = 10;

/** Refusals are part of what is warmed (conditions that fail, transactions cancelled). */
async function attempt(request: Promise<unknown>): Promise<void> {
  try {
    await request;
  } catch (error) {
    if (!isConditionFailure(error) && (error as { name?: string }).name !== 'TransactionCanceledException') throw error;
  }
}

function scratchItem(partition: string, n: number): Record<string, unknown> {
  const item: Record<string, unknown> = { pk: partition, sk: `ITEM#${String(n).padStart(4, '0')}`, entity: 'bench_warmup', status: n % 2 ? 'active' : 'ended', amount: n, n };
  for (const index of GLOBAL_INDEXES) {
    item[index.partition] = `${partition}#${index.name}`;
    item[index.sort] = `${n % 2 ? 'active' : 'ended'}#${String(n).padStart(4, '0')}`;
  }
  return item;
}

async function worker(db: DynamoDBDocumentClient, tableName: string, id: number): Promise<void> {
  const partition = `BENCHWARM#${id}`;
  const key = (n: number) => ({ pk: partition, sk: `ITEM#${String(n).padStart(4, '0')}` });
  for (let round = 0; round < ROUNDS_PER_WORKER; round++) {
    const n = round % ITEMS;
    await attempt(db.send(new PutCommand({ TableName: tableName, Item: scratchItem(partition, n), ConditionExpression: 'attribute_not_exists(pk) OR #n <> :n', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':n': -1 } })));
    await db.send(new GetCommand({ TableName: tableName, Key: key(n), ConsistentRead: true }));
    await attempt(
      db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: partition, sk: 'COUNTS' },
          UpdateExpression: 'SET #now = if_not_exists(#now, :zero) + :one, #total = if_not_exists(#total, :zero) + :one REMOVE #gone',
          ConditionExpression: '(attribute_not_exists(#total) OR #total < :ceiling) AND attribute_not_exists(#gone)',
          ExpressionAttributeNames: { '#now': `s${round % 60}`, '#total': 'total', '#gone': 'gone' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':ceiling': round % 7 === 0 ? 0 : 1e9 },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pk': partition, ':prefix': 'ITEM#', ':status': 'active' },
        ScanIndexForward: round % 2 === 0,
        Limit: 5,
      }),
    );
    const index = GLOBAL_INDEXES[round % GLOBAL_INDEXES.length]!;
    await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
        ExpressionAttributeNames: { '#pk': index.partition, '#sk': index.sort },
        ExpressionAttributeValues: { ':pk': `${partition}#${index.name}`, ':lower': 'active#', ':upper': 'active#~' },
        ScanIndexForward: false,
        Limit: 20,
      }),
    );
    await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: Array.from({ length: ITEMS }, (_, i) => key(i)) } } }));
    await attempt(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: { pk: partition, sk: `TX#${round % 20}`, n: round }, ConditionExpression: 'attribute_not_exists(pk) OR #n < :n', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':n': round } } },
            { Update: { TableName: tableName, Key: { pk: partition, sk: 'TXCOUNT' }, UpdateExpression: 'ADD #n :one', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':one': 1 } } },
            { ConditionCheck: { TableName: tableName, Key: key(n), ConditionExpression: round % 9 === 0 ? 'attribute_not_exists(pk)' : 'attribute_exists(pk)' } },
          ],
        }),
      ),
    );
    await attempt(db.send(new DeleteCommand({ TableName: tableName, Key: { pk: partition, sk: `TX#${(round + 10) % 20}` }, ConditionExpression: 'attribute_exists(pk)' })));
  }
}

/** About 13,000 requests of eight kinds, four at a time (some 20 s on two cores). */
export async function warmEngine(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  await Promise.all(Array.from({ length: WORKERS }, (_, id) => worker(db, tableName, id)));
}
