/**
 * The DynamoDB requests the floors make as recorded (a request body is its command's input): the
 * commands by operation, and how many items a request names. Shared by the floors and the benches.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';

/** The operations the recorded requests use. */
export const COMMANDS = {
  BatchGetItem: BatchGetItemCommand,
  BatchWriteItem: BatchWriteItemCommand,
  DeleteItem: DeleteItemCommand,
  GetItem: GetItemCommand,
  PutItem: PutItemCommand,
  Query: QueryCommand,
  TransactGetItems: TransactGetItemsCommand,
  TransactWriteItems: TransactWriteItemsCommand,
  UpdateItem: UpdateItemCommand,
};

/**
 * Items one request names: each item a transaction writes, checks or reads, each request of a batch,
 * and 1 for a single-item request (and for a Query or Scan, whatever it returns): the ingestion bench
 * counts what the service sent with it, the same-requests floor what it sends.
 */
export function itemsOf(operation, input) {
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') return input.TransactItems?.length ?? 0;
  if (operation === 'BatchWriteItem') return Object.values(input.RequestItems ?? {}).reduce((sum, requests) => sum + requests.length, 0);
  if (operation === 'BatchGetItem') return Object.values(input.RequestItems ?? {}).reduce((sum, { Keys }) => sum + (Keys?.length ?? 0), 0);
  return 1;
}
