/**
 * Dollars per million failures: one failure's whole life driven in process through the real handlers,
 * jobs and stream consumer (the local runners standing in for API Gateway, EventBridge Scheduler and the
 * table's stream), with every DynamoDB request asking for its ConsumedCapacity (a request-tally
 * middleware on the shared client). Each part of the life gets its read and write units, Lambda
 * invocations with their measured durations, scheduled invocations and emails, priced at the list
 * prices in PRICES. The floor's single write is priced the same way.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { JobRun } from '../bin/local/invoke-job.ts';
import { progress } from './progress.ts';

/**
 * List prices, us-east-1, read 2026-11-26. DynamoDB on-demand (aws.amazon.com/dynamodb/pricing/on-demand/,
 * in effect since the cut of 2024-11-01): $0.625 per million write request units, $0.125 per million read
 * request units; stream reads by Lambda triggers are free. Lambda (aws.amazon.com/lambda/pricing/), arm64:
 * $0.20 per million requests, $0.0000133334 per GB-second (first 7.5 billion GB-s a month). EventBridge
 * Scheduler (aws.amazon.com/eventbridge/pricing/; AWS Price List AWSEvents, effective 2024-10-01): $1.00 per
 * million scheduled invocations after 14 million free a month (left out here: a volume price). SES
 * (aws.amazon.com/ses/pricing/): $0.10 per 1,000 outbound emails. Free tiers are left out throughout.
 */
export const PRICES = {
  region: 'us-east-1',
  read_at: '2026-11-26',
  dynamodb_write_request_unit: 0.625 / 1e6,
  dynamodb_read_request_unit: 0.125 / 1e6,
  lambda_request: 0.2 / 1e6,
  lambda_gb_second_arm64: 0.0000133334,
  lambda_memory_gb: 0.5,
  scheduler_invocation: 1 / 1e6,
  email: 0.1 / 1000,
} as const;

interface Part {
  read_units: number;
  write_units: number;
  dynamodb_requests: number;
  lambda_invocations: number;
  lambda_ms: number;
  scheduled_invocations: number;
  emails: number;
}

const emptyPart = (): Part => ({ read_units: 0, write_units: 0, dynamodb_requests: 0, lambda_invocations: 0, lambda_ms: 0, scheduled_invocations: 0, emails: 0 });

/** Dollars for one occurrence of a part. */
export function dollars(part: Part): number {
  const billedMs = part.lambda_ms; // each invocation's duration is rounded up to the ms where it is measured
  return (
    part.write_units * PRICES.dynamodb_write_request_unit +
    part.read_units * PRICES.dynamodb_read_request_unit +
    part.lambda_invocations * PRICES.lambda_request +
    (billedMs / 1000) * PRICES.lambda_memory_gb * PRICES.lambda_gb_second_arm64 +
    part.scheduled_invocations * PRICES.scheduler_invocation +
    part.emails * PRICES.email
  );
}

/** The part of a failure's life each scheduled job belongs to. */
const JOB_PARTS: Record<string, string> = {
  'payment-retry': 'retries and their outcomes',
  'campaign-step': 'dunning steps and messages',
  'webhook-delivery': 'stream: outbound webhooks (one endpoint)',
};

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/** The local scheduler's items (EventBridge Scheduler in AWS) and the local runners' own bookkeeping: not DynamoDB work of the service. */
function isLocalStandIn(input: any): boolean {
  const text = JSON.stringify([input?.Item?.pk, input?.Key?.pk, input?.ExpressionAttributeValues]);
  return text.includes('LOCALJOB');
}

/** Where a stream consumer's request belongs, by the first item it names. */
function consumerOf(input: any): string {
  const keys = [
    input?.Item?.sk,
    input?.Key?.sk,
    ...(input?.TransactItems ?? []).map((item: any) => Object.values(item as Record<string, any>)[0]?.Item?.sk ?? Object.values(item as Record<string, any>)[0]?.Key?.sk),
    ...Object.values(input?.ExpressionAttributeValues ?? {}),
  ].map(String);
  if (keys.some((key) => key.startsWith('ANALYTICS'))) return 'stream: analytics';
  if (keys.some((key) => /^(WHDELIVERY|WEBHOOK)/.test(key))) return 'stream: outbound webhooks (one endpoint)';
  if (keys.some((key) => /^(ENROLLMENT|CAMPAIGN|MESSAGED)/.test(key))) return 'stream: dunning (enrolment, campaign counters)';
  if (keys.some((key) => key.startsWith('CUSTSEARCH'))) return 'stream: customer search index';
  return 'stream: configuration reads and the rest';
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** An item's kind: its sort key's entity prefix (`PAYMENT`, `EVENT`, ...), or the index a query reads. */
function kindOf(sk: unknown): string {
  if (typeof sk !== 'string') return '?';
  const [first, second] = sk.split('#');
  return first || `#${second}`;
}

/** `Put:EVENT×2 Update:STATS`: each name once, with how often it came when more than once. */
const counted = (names: string[]): string =>
  [...new Set(names)].map((name) => {
    const times = names.filter((other) => other === name).length;
    return times > 1 ? `${name}×${times}` : name;
  }).join(' ');

/**
 * What one request did, for the breakdown: its operation and the kinds of item it names, such as
 * `UpdateItem PAYMENT` or `TransactWriteItems Put:EVENT Update:PAYMENT ConditionCheck:CUSTOMER`.
 */
export function requestLabel(commandName: string, input: any): string {
  const operation = commandName.replace(/Command$/, '');
  if (input?.TransactItems) {
    const items = (input.TransactItems as Record<string, any>[]).map((item) => {
      const [kind, request] = Object.entries(item)[0]!;
      return `${kind}:${kindOf(request.Item?.sk ?? request.Key?.sk)}`;
    });
    return `${operation} ${counted(items)}`;
  }
  if (input?.RequestItems) {
    const requests = Object.values(input.RequestItems as Record<string, any>).flatMap((entry) => (Array.isArray(entry) ? entry : (entry.Keys ?? [])));
    const kinds = requests.map((request: any) => (request.PutRequest ? `Put:${kindOf(request.PutRequest.Item.sk)}` : request.DeleteRequest ? `Delete:${kindOf(request.DeleteRequest.Key.sk)}` : kindOf(request.sk)));
    return `${operation} ${counted(kinds)}`;
  }
  if (operation === 'Query' || operation === 'Scan') {
    const prefix = Object.values(input.ExpressionAttributeValues ?? {}).find((value) => typeof value === 'string' && !value.startsWith('TENANT#'));
    return `${operation} ${input.IndexName ?? 'table'} ${kindOf(prefix)}`;
  }
  return `${operation} ${kindOf(input?.Item?.sk ?? input?.Key?.sk)}`;
}

interface Line {
  requests: number;
  read_units: number;
  write_units: number;
  /** A transaction's write units by item and where they land (`Put:PAYMENT table`, `Put:PAYMENT gsi1`). */
  items?: Record<string, number>;
  /** The largest size written of each kind of item, in bytes as DynamoDB bills them. */
  bytes?: Record<string, number>;
}

/**
 * Drops every job the local scheduler holds, and delivers the events waiting for the stream: what the
 * benches before this one left (the ingestion bench's retries) must not run, or be counted, as this one's.
 */
export async function startClean(): Promise<void> {
  const { localRuntime } = await import('../bin/local/local-runtime.ts');
  const { drainEvents } = await import('../bin/local/event-runner.ts');
  const { scheduler } = localRuntime();
  for (let jobs = await scheduler.due(new Date('9999-12-31')); jobs.length > 0; jobs = await scheduler.due(new Date('9999-12-31'))) {
    await Promise.all(jobs.map((job) => scheduler.cancel(job.jobId)));
  }
  await drainEvents();
}

/** An item's size as DynamoDB bills it: attribute names and values, UTF-8 (numbers about a byte per two digits). */
export function itemBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (Array.isArray(value)) return 3 + sum(value.map((element) => itemBytes(element) + 1));
  if (value instanceof Set) return sum([...value].map(itemBytes));
  return 3 + sum(Object.entries(value as Record<string, unknown>).map(([name, element]) => Buffer.byteLength(name) + itemBytes(element) + 1));
}

/** Keys-only projections (docs/data-model.md): an entry of a few hundred bytes, one unit. */
const NARROW_INDEXES = new Set(['gsi4', 'gsi5']);

/**
 * Write units of a committed TransactWriteItems by the key they land on (`table <pk>`, or `<index> <its
 * pk>`), by AWS's rules (DynamoDB Local reports them wrongly: 2 for three small puts): two per KB of each
 * item written or checked (a condition check or a delete counted at 1 KB), and one per KB for each index
 * entry a written item carries (index updates are not transactional). `stored` reads an item back after
 * the commit.
 */
export async function transactionUnitsByKey(
  items: any[],
  stored: (key: { pk: string; sk: string }) => Promise<Record<string, unknown> | undefined>,
): Promise<Map<string, number>> {
  const units = new Map<string, number>();
  for (const share of await transactionShares(items, stored)) units.set(share.key, (units.get(share.key) ?? 0) + share.units);
  return units;
}

/** Each item's shares of a transaction's write units: the item (`Put:PAYMENT`), where they land (`gsi1 <its pk>`), how many. */
async function transactionShares(
  items: any[],
  stored: (key: { pk: string; sk: string }) => Promise<Record<string, unknown> | undefined>,
): Promise<{ item: string; key: string; units: number; bytes?: number }[]> {
  const shares: { item: string; key: string; units: number; bytes?: number }[] = [];
  for (const entry of items) {
    const [operation, request] = Object.entries(entry as Record<string, any>)[0]!;
    const key = request.Item ? { pk: request.Item.pk, sk: request.Item.sk } : request.Key;
    const item = operation === 'Put' ? request.Item : operation === 'Update' ? await stored(key) : undefined;
    const kilobytes = item ? Math.max(1, Math.ceil(itemBytes(item) / 1024)) : 1;
    const name = `${operation}:${kindOf(key.sk)}`;
    shares.push({ item: name, key: `table ${key.pk}`, units: 2 * kilobytes, ...(item ? { bytes: itemBytes(item) } : {}) });
    if (!item) continue;
    for (const index of Object.keys(item).filter((attribute) => /^gsi\dpk$/.test(attribute)).map((attribute) => attribute.slice(0, 4))) {
      shares.push({ item: name, key: `${index} ${String(item[`${index}pk`])}`, units: NARROW_INDEXES.has(index) ? 1 : kilobytes });
    }
  }
  return shares;
}

export async function benchCost() {
  const { runtime } = await import('../shared/runtime.ts');
  const { localRuntime } = await import('../bin/local/local-runtime.ts');
  const { call, newMerchant } = await import('../test/support/api.ts');
  const { runDueJobs } = await import('../bin/local/job-runner.ts');
  const { runRecurringJobs } = await import('../bin/local/recurring-runner.ts');
  const { drainEvents } = await import('../bin/local/event-runner.ts');
  const { connect, GENERIC_SECRET, genericFailure, nowSeconds, postGeneric } = await import('../test/support/webhooks.ts');
  const { createDocumentClient } = await import('../shared/store/dynamo.ts');
  const local = localRuntime();
  const readBack = createDocumentClient();

  // A merchant's endpoint that accepts every delivery.
  const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(200).end('ok')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const parts = new Map<string, Part>();
  const partOf = (name: string) => parts.get(name) ?? (parts.set(name, emptyPart()), parts.get(name)!);
  /** Per part, per request label: where the units go. */
  const breakdown = new Map<string, Map<string, Line>>();
  const lineOf = (part: string, label: string) => {
    const lines = breakdown.get(part) ?? (breakdown.set(part, new Map()), breakdown.get(part)!);
    return lines.get(label) ?? (lines.set(label, { requests: 0, read_units: 0, write_units: 0 }), lines.get(label)!);
  };
  let phase: string | undefined;
  const tally = 'costTally';
  runtime.db.middlewareStack.add(
    (next: any, context: any) => async (args: any) => {
      const at = phase;
      if (at === undefined || isLocalStandIn(args.input)) return next(args);
      args.input.ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const partName = at === 'stream' ? consumerOf(args.input) : at;
      const part = partOf(partName);
      const line = lineOf(partName, requestLabel(context.commandName, args.input));
      const consumed = [result.output.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[];
      let units = sum(consumed.map((capacity) => capacity.CapacityUnits ?? 0));
      if (args.input.Item) line.bytes = { [kindOf(args.input.Item.sk)]: Math.max(line.bytes?.[kindOf(args.input.Item.sk)] ?? 0, itemBytes(args.input.Item)) };
      if (context.commandName !== 'TransactWriteItemsCommand') for (const capacity of consumed as { GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }> }[]) {
        for (const [index, used] of Object.entries(capacity.GlobalSecondaryIndexes ?? {})) {
          line.items ??= {};
          line.items[index] = (line.items[index] ?? 0) + (used.CapacityUnits ?? 0);
        }
      }
      if (context.commandName === 'TransactWriteItemsCommand') {
        // Read back through a client of its own: the bench's reads, not the service's.
        const shares = await transactionShares(args.input.TransactItems, async (key) => (await readBack.send(new GetCommand({ TableName: runtime.tableName, Key: key }))).Item);
        units = sum(shares.map((share) => share.units));
        line.items ??= {};
        for (const share of shares) {
          const where = `${share.item} ${share.key.split(' ')[0]}`;
          line.items[where] = (line.items[where] ?? 0) + share.units;
          if (share.bytes !== undefined) line.bytes = { ...line.bytes, [share.item]: Math.max(line.bytes?.[share.item] ?? 0, share.bytes) };
        }
      }
      part.dynamodb_requests += 1;
      line.requests += 1;
      if (WRITES.has(context.commandName)) {
        part.write_units += units;
        line.write_units += units;
      } else {
        part.read_units += units;
        line.read_units += units;
      }
      return result;
    },
    { step: 'initialize', name: tally },
  );
  const timed = async <T>(name: string, invocations: (result: T) => number, work: () => Promise<T>): Promise<T> => {
    phase = name;
    const started = performance.now();
    try {
      const result = await work();
      // The stream's requests go to the consumers they serve; its invocations get a line of their own.
      const part = partOf(name === 'stream' ? 'stream: the consumer function (Lambda only)' : name);
      const count = invocations(result);
      part.lambda_invocations += count;
      // Each invocation billed by the ms, rounded up.
      if (count > 0) part.lambda_ms += Math.ceil((performance.now() - started) / count) * count;
      return result;
    } finally {
      phase = undefined;
    }
  };
  const stream = () => timed('stream', (run: { events: number }) => (run.events > 0 ? 1 : 0), drainEvents);
  const emailsSent = () => local.outbox.entries().filter((entry) => entry.channel === 'email').length;

  try {
    await progress.timed('dropping what earlier benches left scheduled', startClean);
    const merchant = await newMerchant();
    const path = await connect(merchant.keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const endpoint = await call('POST', '/v1/webhooks', { key: merchant.keys.test_admin, body: { url, events: ['*'] } });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${JSON.stringify(endpoint.body)}`);
    const campaign = await call('POST', '/v1/campaigns', {
      key: merchant.keys.test_admin,
      body: {
        name: 'Card problems',
        trigger: 'soft_decline',
        steps: [
          { channel: 'email', template_id: 'tpl_update_payment_method', subject: 'Action needed', delay_hours: 1 },
          { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Second reminder', delay_hours: 24 },
          { channel: 'email', template_id: 'tpl_payment_failed', subject: 'Last reminder', delay_hours: 48 },
        ],
      },
    });
    if (campaign.status !== 201) throw new Error(`campaign: ${JSON.stringify(campaign.body)}`);
    await call('POST', `/v1/campaigns/${campaign.body.data.id}/activate`, { key: merchant.keys.test_admin });
    await drainEvents();

    /** One failure's life, from its webhook to its customer's erasure. */
    const live = async () => {
      // A soft decline whose card keeps declining (sandbox 9995): retried until the retries run out, then dunned.
      const failure = genericFailure({ code: 'insufficient_funds', lastFour: '9995' });
      const ingested = await timed('ingestion', () => 1, () => postGeneric(path, failure));
      if (ingested.status !== 200) throw new Error(`ingestion: ${JSON.stringify(ingested.body)}`);
      const customerId = ingested.body.customer_id as string;
      await stream();
      const emailsBefore = emailsSent();
      /** Moves the clock to the next scheduled job and runs what is due, attributing it to its kind. */
      const nextJob = async (): Promise<boolean> => {
        const horizon = new Date(runtime.clock.now().getTime() + 30 * 86_400_000);
        const [due] = await local.scheduler.due(horizon);
        if (!due) return false;
        const wait = Math.max(0, Date.parse(due.runAt) - runtime.clock.now().getTime());
        local.clock.advance(Math.ceil(wait / 1000) + 1);
        const kind = JOB_PARTS[due.kind] ?? `job: ${due.kind}`;
        const emails = emailsSent();
        // The daily calendar sweep runs once a day for every merchant, whatever fails: not this failure's cost.
        await runRecurringJobs();
        await timed(kind, (runs: JobRun[]) => runs.filter((run) => run.kind === due.kind).length, runDueJobs);
        partOf(kind).scheduled_invocations += 1;
        partOf(kind).emails += emailsSent() - emails;
        await stream();
        return true;
      };
      // Until the first dunning message has gone out.
      for (let jobs = 0; jobs < 40 && emailsSent() === emailsBefore; jobs++) if (!(await nextJob())) break;
      // The customer updates the card and pays: the processor's success webhook.
      local.clock.advance(3600);
      const paid = await timed('recovery', () => 1, () => postGeneric(path, { ...failure, id: `${failure.id}_paid`, type: 'payment.succeeded', created: nowSeconds() }));
      if (paid.status !== 200) throw new Error(`recovery: ${JSON.stringify(paid.body)}`);
      await stream();
      // Whatever the recovery left scheduled (canceled steps fire and find nothing to do).
      for (let jobs = 0; jobs < 20; jobs++) if (!(await nextJob())) break;
      // The customer asks to be forgotten.
      const erased = await timed('erasure of its customer', () => 1, () => call('DELETE', `/v1/customers/${customerId}`, { key: merchant.keys.test_admin }));
      if (erased.status >= 300) throw new Error(`erasure: ${JSON.stringify(erased.body)}`);
      await stream();
      for (let jobs = 0; jobs < 20; jobs++) if (!(await nextJob())) break;
      return failure;
    };
    // The first life loads every module (tsx transpiles it: a local cold start); the second is measured.
    const warming = progress.step('a first failure, to load every handler');
    await live();
    warming.done();
    parts.clear();
    breakdown.clear();
    const step = progress.step('one failure, from webhook to erasure');
    const failure = await live();
    step.done();

    // The floor's single write: the ingestion floor's three-item transaction (bench/floor/ingestion-floor.mjs).
    const floorWrite = await timed('the floor: one three-item transaction', () => 1, () =>
      runtime.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: runtime.tableName, Item: { pk: 'FLOOR#cost', sk: 'PAYMENT#1', ...failure.payment, customer: failure.customer.id, status: 'pending' } } },
            { Put: { TableName: runtime.tableName, Item: { pk: 'FLOOR#cost', sk: `REF#${failure.payment.id}`, payment_id: '1' }, ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: runtime.tableName, Item: { pk: 'FLOOR#cost', sk: `EVENT#${failure.id}`, type: 'payment.failed', data: failure.payment } } },
          ],
        }),
      ),
    );
    void floorWrite;

    const rows = [...parts.entries()].map(([name, part]) => ({
      part: name,
      ...part,
      dollars_per_million: Math.round(dollars(part) * 1e6 * 100) / 100,
      requests: [...(breakdown.get(name) ?? new Map<string, Line>()).entries()]
        .map(([request, line]) => ({ request, ...line }))
        .sort((a, b) => b.write_units + b.read_units / 5 - (a.write_units + a.read_units / 5)),
    }));
    const life = rows.filter((row) => !row.part.startsWith('the floor'));
    const floor = rows.find((row) => row.part.startsWith('the floor'))!;
    const total = Math.round(sum(life.map((row) => row.dollars_per_million)) * 100) / 100;
    return { prices: PRICES, parts: life, floor, dollars_per_million_failures: total, floor_dollars_per_million: floor.dollars_per_million, ratio_to_floor: Math.round((total / floor.dollars_per_million) * 10) / 10 };
  } finally {
    runtime.db.middlewareStack.remove(tally);
    await new Promise((resolve) => receiver.close(resolve));
  }
}
