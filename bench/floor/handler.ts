/**
 * The floor the functions' bundles and cold starts are compared with (issue #9): the least a
 * function of this service does. It parses its path with zod and reads one item through the
 * DynamoDB document client. Written against the API zod and zod/mini share (`z.object`,
 * `.check(z.regex())`, `safeParse`), so the bench builds the same file with either.
 * FLOOR_READS=3 makes it read the item three times, one after the other, as a REST function's cold
 * request makes three calls (key, rate limit, data): the part of a function's init that is its calls.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';

/** Where bench/fixture.ts puts the item the floor reads. */
export const FLOOR_PARTITION = 'BENCHFLOOR';

const pathParameters = z.object({ id: z.string().check(z.regex(/^pay_[0-9a-z]{26}$/)) });

const tableName = process.env.TABLE_NAME;
if (!tableName) throw new Error('Missing required configuration: environment variable TABLE_NAME is not set');
const reads = Number(process.env.FLOOR_READS ?? 1);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));

const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const parsed = pathParameters.safeParse(event.pathParameters ?? {});
  if (!parsed.success) return json(400, { error: { code: 'validation_error', message: 'id must be a payment id' } });
  let Item: Record<string, unknown> | undefined;
  for (let read = 0; read < reads; read++) {
    ({ Item } = await db.send(new GetCommand({ TableName: tableName, Key: { pk: FLOOR_PARTITION, sk: parsed.data.id } })));
  }
  return Item ? json(200, { data: Item }) : json(404, { error: { code: 'resource_not_found', message: 'No such payment' } });
}
