/**
 * What the same-requests ingestion floor replays (docs/decisions.md, "Ingestion held to a floor making
 * the same requests"): the DynamoDB requests the local server made for each event. A second `npm start`
 * on the same engine, with a table of its own, sends them through the recording proxy of the cold-start
 * bench (bench/request-tally.ts), before the timed rounds, so the proxy's hop is never timed. The events
 * go as many in flight as in the rounds; each request is marked with the event it was made for
 * (bench/recording-preload.mjs, loaded into this server only). The floor's table starts as a copy of the
 * recording table before the first event, and the requests are aimed at it, so each replayed request
 * finds what the recorded one found: the same items written, the same conditions met.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { BatchWriteItemCommand, DynamoDBClient, paginateScan, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { ensureTable, localEnvironment } from '../bin/local/table.ts';
import { startLocalServer } from '../test/support/local-server.ts';
import { itemsOf } from './floor/calls.mjs';
import { progress } from './progress.ts';
import { countingProxy, type Call } from './request-tally.ts';

/** The recording server's table; the floor's is given. */
const RECORDING_TABLE = 'ingestion-recorded';
const PRELOAD = join(import.meta.dirname, 'recording-preload.mjs');
/** Deliveries of one event to the recording server before the bench gives up. */
const MAX_DELIVERIES = 5;

type Input = Record<string, any>;

/**
 * `call` aimed at `tableName`: every TableName and batch table replaced. A transaction's
 * ClientRequestToken is replaced by one of the floor's own (derived from it, so still one per
 * transaction): DynamoDB answers a token it saw in the last 10 minutes with other parameters as a
 * mismatch, without doing the writes.
 */
export function forTable(call: Call, tableName: string): Call {
  const input = structuredClone(call.input) as Input;
  if (input.TableName !== undefined) input.TableName = tableName;
  for (const entry of (input.TransactItems ?? []) as Input[]) for (const part of Object.values(entry) as Input[]) part.TableName = tableName;
  if (input.RequestItems !== undefined) {
    const tables = Object.values(input.RequestItems);
    if (tables.length !== 1) throw new Error(`A batch over ${tables.length} tables cannot be aimed at one`);
    input.RequestItems = { [tableName]: tables[0] };
  }
  if (input.ClientRequestToken !== undefined) input.ClientRequestToken = createHash('sha256').update(`${tableName}#${input.ClientRequestToken}`).digest('hex').slice(0, 36);
  return { operation: call.operation, input };
}

/** One event's requests and the items they name (bench/floor/calls.mjs). */
export function eventFigures(rounds: readonly Call[][]): { requests: number; items: number } {
  const calls = rounds.flat();
  return { requests: calls.length, items: calls.reduce((sum, call) => sum + itemsOf(call.operation, call.input), 0) };
}

/** Every item of `from` written to `to`, on one engine (the recording table's state before its first event). */
async function copyTable(endpoint: string, from: string, to: string): Promise<number> {
  const { AWS_REGION: region, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = localEnvironment(endpoint, to, '');
  const client = new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! } });
  let copied = 0;
  try {
    for await (const page of paginateScan({ client }, { TableName: from, ConsistentRead: true })) {
      const items = page.Items ?? [];
      for (let start = 0; start < items.length; start += 25) {
        let pending: WriteRequest[] = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
        while (pending.length > 0) pending = (await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: pending } }))).UnprocessedItems?.[to] ?? [];
      }
      copied += items.length;
    }
  } finally {
    client.destroy();
  }
  return copied;
}

export interface Recording {
  /** Event id → the requests the service made for it, in rounds, aimed at the floor's table. */
  calls: Record<string, Call[][]>;
  /** Items the floor's table started with (the recording server's demo merchant and connection). */
  seeded_items: number;
  /** Events the recording server refused once and answered when delivered again. */
  redelivered: number;
}

/**
 * Records the local server's requests for each of `bodies` (signed generic events, each with its `id`),
 * delivered in this order, `concurrency` in flight, by `deliver` to the webhook URL a recording server
 * connects with `secret`, and prepares `floorTable` on the engine at `endpoint` for their replay.
 */
export async function recordServiceRequests(
  endpoint: string,
  floorTable: string,
  bodies: readonly string[],
  { secret, concurrency }: { secret: string; concurrency: number },
  deliver: (url: string, body: string, headers: Record<string, string>) => Promise<Response>,
): Promise<Recording> {
  const proxy = await countingProxy(endpoint);
  const server = await progress.timed('starting a recording server', () =>
    startLocalServer({ LOG_LEVEL: 'warn', NODE_OPTIONS: `--import ${PRELOAD}` }, ['--no-timer', '--dynamodb-endpoint', proxy.url, '--table', RECORDING_TABLE]),
  );
  try {
    const connected = await server.api('PUT', '/v1/processors/acme', { webhook_secret: secret });
    const url = `${server.baseUrl}${new URL(connected.body.data.webhook_url).pathname}`;
    await ensureTable(endpoint, floorTable);
    const seeded = await copyTable(endpoint, RECORDING_TABLE, floorTable);
    proxy.take();
    const step = progress.step(`recording the local server's requests (${concurrency} in flight)`, bodies.length);
    const calls: Record<string, Call[][]> = {};
    let next = 0;
    let redelivered = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const { id } = JSON.parse(body) as { id: string };
        // Refused (a request past its deadline on a busy machine), it is delivered again as a processor
        // would, and the requests of every try are the service's for that event.
        for (let tries = 1; ; tries++) {
          const response = await deliver(url, body, { 'x-recorded-for': id });
          const answer = await response.text();
          if (response.status === 200) break;
          if (tries === MAX_DELIVERIES) throw new Error(`the recording server refused event ${id} ${tries} times: ${answer}`);
          redelivered += 1;
        }
        calls[id] = proxy.takeCausedBy(id).map((round) => round.map((call) => forTable(call, floorTable)));
        step.advance();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    step.done();
    const unattributed = proxy.take().rounds.flat().length;
    if (unattributed > 0) throw new Error(`${unattributed} requests of the recording server were made for no event`);
    return { calls, seeded_items: seeded, redelivered };
  } finally {
    await server.stop();
    await proxy.close();
  }
}
