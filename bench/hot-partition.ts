/**
 * One tenant's hot partition (docs/data-model.md, "One tenant's busiest keys"): a burst of concurrent
 * failure events for one merchant through the real webhook handler in process, then the stream
 * consumers over the events it wrote (analytics, dunning, one outbound webhook endpoint and its
 * deliveries), with every request's units tallied by the key they land on: the table's partition key
 * (a tenant's own key or one of its shards, keys.ts), or an index's. Reports the busiest key of the
 * table and of each index, and the tenant's own key and shards: units per failure, units per second
 * during the burst on DynamoDB Local, and what a renewal day of 100,000 failures in an hour (and its
 * busiest minutes, twice that) puts on them, pass or FAIL against DynamoDB's per-partition limits.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { startClean, transactionUnitsByKey } from './cost.ts';
import { progress } from './progress.ts';

/** DynamoDB's throughput limits per partition. */
export const PARTITION_LIMITS = { write_units_per_second: 1000, read_units_per_second: 3000 } as const;
/** The issue's renewal day: 100,000 failures in one hour. */
const RENEWAL_FAILURES_PER_SECOND = 100_000 / 3600;
/** Processors post a renewal run's failures together: the busiest minutes see twice the hour's average. */
const PEAK_FACTOR = 2;

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/** The partition key a read or single write lands on: the table's, or the queried index's. */
function keyOf(input: any): string {
  const pk = input?.Item?.pk ?? input?.Key?.pk;
  if (pk) return `table ${pk}`;
  if (input?.RequestItems) {
    const [request] = Object.values(input.RequestItems as Record<string, any>);
    return `table ${request?.Keys?.[0]?.pk ?? request?.[0]?.PutRequest?.Item?.pk ?? request?.[0]?.DeleteRequest?.Key?.pk}`;
  }
  const values = Object.values(input?.ExpressionAttributeValues ?? {}).map(String);
  const partition = input?.ExpressionAttributeValues?.[':pk'] ?? values.find((value) => value.includes('#')) ?? values[0];
  return `${input?.IndexName ?? 'table'} ${partition}`;
}

/** Tenant ids and entity ids out of a key, so the report reads the same in every run. */
const shape = (key: string) => key.replace(/mer_[0-9a-z]+/g, '<m>').replace(/(cus|pay|con|we|cmp)_[0-9a-z]+/g, '$1_<id>');

export async function benchHotPartition(events: number, concurrency: number) {
  const { runtime } = await import('../shared/runtime.ts');
  const { createDocumentClient } = await import('../shared/store/dynamo.ts');
  const { call, newMerchant } = await import('../test/support/api.ts');
  const { drainEvents } = await import('../bin/local/event-runner.ts');
  const { runDueJobs } = await import('../bin/local/job-runner.ts');
  const { connect, GENERIC_SECRET, genericFailure, postGeneric } = await import('../test/support/webhooks.ts');
  const readBack = createDocumentClient();
  const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(200).end('ok')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

  await progress.timed('dropping what earlier benches left scheduled', startClean);
  const merchant = await newMerchant();
  const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  await call('POST', '/v1/webhooks', { key: merchant.keys.test_admin, body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['*'] } });
  await drainEvents();

  type Units = { read: number; write: number };
  let tally: Map<string, Units> | undefined;
  const add = (key: string, kind: keyof Units, units: number) => {
    if (!tally || units === 0) return;
    const entry = tally.get(key) ?? { read: 0, write: 0 };
    entry[kind] += units;
    tally.set(key, entry);
  };
  const name = 'hotPartitionTally';
  runtime.db.middlewareStack.add(
    (next: any, context: any) => async (args: any) => {
      if (!tally || JSON.stringify(args.input).includes('LOCALJOB')) return next(args);
      args.input.ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      if (context.commandName === 'TransactWriteItemsCommand') {
        const byKey = await transactionUnitsByKey(args.input.TransactItems, async (key) => (await readBack.send(new GetCommand({ TableName: runtime.tableName, Key: key }))).Item);
        for (const [key, units] of byKey) add(key, 'write', units);
        return result;
      }
      const kind = WRITES.has(context.commandName) ? 'write' : 'read';
      for (const consumed of [result.output.ConsumedCapacity ?? []].flat() as any[]) {
        if (args.input.IndexName) {
          add(keyOf(args.input), kind, consumed.CapacityUnits ?? 0);
          continue;
        }
        add(keyOf(args.input), kind, consumed.Table?.CapacityUnits ?? consumed.CapacityUnits ?? 0);
        // A single write's index entries, on the key the written item carries in each index.
        for (const [index, capacity] of Object.entries((consumed.GlobalSecondaryIndexes ?? {}) as Record<string, { CapacityUnits?: number }>)) {
          add(`${index} ${args.input.Item?.[`${index}pk`] ?? '(an updated item)'}`, kind, capacity.CapacityUnits ?? 0);
        }
      }
      return result;
    },
    { step: 'initialize', name },
  );

  try {
    // Renewal day: new failures of a third hard (dunned), two thirds soft (a retry scheduled).
    const bodies = Array.from({ length: events }, (_, n) => genericFailure({ code: n % 3 === 0 ? 'expired_card' : 'insufficient_funds' }));
    tally = new Map();
    const step = progress.step(`a burst of ${events} failures for one tenant (${concurrency} in flight)`, events);
    let next = 0;
    let refused = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const response = await postGeneric(path, bodies[next++]!);
          if (response.status !== 200) refused += 1;
          step.advance();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    step.done();
    const ingestion = tally;
    tally = new Map();
    await progress.timed('the stream consumers and deliveries over its events', async () => {
      await drainEvents();
      await runDueJobs();
      await drainEvents();
    });
    const consumers = tally;
    tally = undefined;

    const keys = new Set([...ingestion.keys(), ...consumers.keys()]);
    const rows = [...keys].map((key) => {
      const during = ingestion.get(key) ?? { read: 0, write: 0 };
      const after = consumers.get(key) ?? { read: 0, write: 0 };
      // Per failure stored: a refused event (a timeout on a loaded machine) leaves little or nothing, and must not dilute the rest.
      const stored = Math.max(1, events - refused);
      const perFailure = { read: (during.read + after.read) / stored, write: (during.write + after.write) / stored };
      const round = (n: number) => Math.round(n * 10) / 10;
      const renewal = { write: perFailure.write * RENEWAL_FAILURES_PER_SECOND, read: perFailure.read * RENEWAL_FAILURES_PER_SECOND };
      const within = renewal.write * PEAK_FACTOR <= PARTITION_LIMITS.write_units_per_second && renewal.read * PEAK_FACTOR <= PARTITION_LIMITS.read_units_per_second;
      return {
        key: shape(key),
        index: key.split(' ')[0]!,
        write_units_per_failure: round(perFailure.write),
        read_units_per_failure: round(perFailure.read),
        burst_write_units_per_second: round(during.write / seconds),
        renewal_write_units_per_second: round(renewal.write),
        renewal_read_units_per_second: round(renewal.read),
        peak_write_units_per_second: round(renewal.write * PEAK_FACTOR),
        peak_read_units_per_second: round(renewal.read * PEAK_FACTOR),
        verdict: within ? 'pass' : 'FAIL',
      };
    });
    const byLoad = (a: (typeof rows)[number], b: (typeof rows)[number]) => b.write_units_per_failure - a.write_units_per_failure || b.read_units_per_failure - a.read_units_per_failure;
    // The busiest key of the table and of each index.
    const busiest = [...new Set(rows.map((row) => row.index))].sort().map((index) => rows.filter((row) => row.index === index).sort(byLoad)[0]!);
    // The tenant's own key (configuration) and its shards: how evenly the writes spread.
    const tenantKeys = rows.filter((row) => /^table TENANT#<m>#test(#\d)?$/.test(row.key)).sort((a, b) => a.key.localeCompare(b.key));
    return {
      events,
      concurrency,
      refused,
      seconds: Math.round(seconds * 100) / 100,
      events_per_second: Math.round(events / seconds),
      renewal_failures_per_second: Math.round(RENEWAL_FAILURES_PER_SECOND * 10) / 10,
      limits: PARTITION_LIMITS,
      peak_factor: PEAK_FACTOR,
      verdict: busiest.every((row) => row.verdict === 'pass') ? 'pass' : 'FAIL',
      busiest,
      tenant_keys: tenantKeys,
    };
  } finally {
    runtime.db.middlewareStack.remove(name);
    await new Promise((resolve) => receiver.close(resolve));
  }
}
