/**
 * The floor the functions' bundles and cold starts are compared with (issues #9 and #26): the least a
 * function of this service does. It parses its path with zod and makes its DynamoDB calls through the
 * document client: by default one GetItem of the item bench/fixture.ts seeds for it; with FLOOR_CALLS
 * (JSON: rounds of { operation, input }, as bench/request-tally.ts records a function's first request)
 * the very calls one function's first request made, each round's together, the rounds one after the
 * other, so a function's init is weighed against the same calls with nothing of ours around them.
 * A call the engine refuses (a conditional write replayed) still counts as made. Written against the
 * API zod and zod/mini share (`z.object`, `.check(z.regex())`, `safeParse`), so the bench builds the
 * same file with either.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';
import { COMMANDS } from './calls.mjs';

/** Where bench/fixture.ts puts the item the floor reads. */
export const FLOOR_PARTITION = 'BENCHFLOOR';

const pathParameters = z.object({ id: z.string().check(z.regex(/^pay_[0-9a-z]{26}$/)) });

const tableName = process.env.TABLE_NAME;
if (!tableName) throw new Error('Missing required configuration: environment variable TABLE_NAME is not set');
const calls: { operation: string; input: never }[][] | undefined = process.env.FLOOR_CALLS ? JSON.parse(process.env.FLOOR_CALLS) : undefined;
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));

const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function makeCalls(rounds: NonNullable<typeof calls>): Promise<APIGatewayProxyResult> {
  for (const round of rounds) {
    await Promise.all(
      round.map(({ operation, input }) => {
        const Command = COMMANDS[operation];
        if (!Command) throw new Error(`The floor makes no ${operation} calls`);
        // Each operation's own output type: none is read, so the call is sent as any command.
        return db.send(new Command(input) as never).catch(() => undefined);
      }),
    );
  }
  return json(200, { data: { rounds: rounds.length } });
}

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const parsed = pathParameters.safeParse(event.pathParameters ?? {});
  if (!parsed.success) return json(400, { error: { code: 'validation_error', message: 'id must be a payment id' } });
  if (calls) return makeCalls(calls);
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: { pk: FLOOR_PARTITION, sk: parsed.data.id } }));
  return Item ? json(200, { data: Item }) : json(404, { error: { code: 'resource_not_found', message: 'No such payment' } });
}
