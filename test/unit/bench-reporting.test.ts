import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { contributors, OUR_CODE, packageOf } from '../../bench/bundle-contributors.ts';
import { pathParametersFor } from '../../bench/cold-start-events.ts';
import { callRounds, countingProxy, describeCalls, describeRounds, tallyOperations } from '../../bench/request-tally.ts';
import { dollars, itemBytes, PRICES, transactionUnitsByKey } from '../../bench/cost.ts';
import { renderIngestionThroughput, renderTargets } from '../../bench/summaries.ts';
import { passCount, ratioRows, renderCountChecks, renderFigureChecks, renderRatioTable } from '../../bench/targets.ts';
import { ROUTES, type Route } from '../../shared/routes.ts';

describe('bundle contributors', () => {
  it('names the package of an input, the innermost one for nested node_modules', () => {
    expect(packageOf('node_modules/zod/v4/core/core.js')).toBe('zod');
    expect(packageOf('node_modules/@aws-sdk/client-dynamodb/dist-es/index.js')).toBe('@aws-sdk/client-dynamodb');
    expect(packageOf('node_modules/@aws-sdk/lib-dynamodb/node_modules/@smithy/core/dist-es/index.js')).toBe('@smithy/core');
    expect(packageOf('(disabled):node_modules/braintree/lib/x.js')).toBe('braintree');
    expect(packageOf('shared/http/rest-handler.ts')).toBe(OUR_CODE);
  });

  it('groups inputs by scope or package, largest first, with their share of the bundle', () => {
    // Prepare
    const inputs = {
      'node_modules/@aws-sdk/client-dynamodb/dist-es/index.js': { bytesInOutput: 300 },
      'node_modules/@aws-sdk/lib-dynamodb/dist-es/index.js': { bytesInOutput: 100 },
      'node_modules/@smithy/core/dist-es/index.js': { bytesInOutput: 250 },
      'node_modules/zod/v4/core/core.js': { bytesInOutput: 200 },
      'shared/routes.ts': { bytesInOutput: 80 },
      'functions/payments/get.ts': { bytesInOutput: 20 },
      'node_modules/zod/v4/locales/en.js': { bytesInOutput: 0 },
    };
    // Act
    const groups = contributors(inputs, 1000);
    // Assess
    expect(groups).toEqual([
      { name: '@aws-sdk/*', bytes: 400, share: 0.4 },
      { name: '@smithy/*', bytes: 250, share: 0.25 },
      { name: 'zod', bytes: 200, share: 0.2 },
      { name: OUR_CODE, bytes: 100, share: 0.1 },
    ]);
  });
});

describe('targets against the floor', () => {
  const floor = { bytes: 400_000, initMs: 200, initCpuMs: 100 };

  it('computes both ratios per function, marks each against 1.25, and sorts the worst first', () => {
    // Act
    const rows = ratioRows(
      [
        { handler: 'auth/me', bytes: 440_000, initMs: 210, initCpuMs: 130 },
        { handler: 'webhooks/stripe', bytes: 1_200_000, initMs: 300, initCpuMs: 110 },
        { handler: 'jobs/campaign-step', bytes: 480_000 },
      ],
      floor,
    );
    // Assess
    expect(rows.map((row) => row.handler)).toEqual(['webhooks/stripe', 'jobs/campaign-step', 'auth/me']);
    expect(rows[0]).toEqual({
      handler: 'webhooks/stripe',
      bundle: { value: 1_200_000, floor: 400_000, ratio: 3, pass: false },
      init: { value: 300, floor: 200, ratio: 1.5, pass: false },
      initCpu: { value: 110, floor: 100, ratio: 1.1, pass: true },
    });
    expect(rows[1]).toEqual({ handler: 'jobs/campaign-step', bundle: { value: 480_000, floor: 400_000, ratio: 1.2, pass: true }, init: undefined, initCpu: undefined });
    expect(rows[2]!.init).toEqual({ value: 210, floor: 200, ratio: 1.05, pass: true });
    expect(rows[2]!.initCpu).toEqual({ value: 130, floor: 100, ratio: 1.3, pass: false });
    expect(passCount(rows, (row) => row.bundle)).toBe('2 of 3 functions pass');
    expect(passCount(rows, (row) => row.init)).toBe('1 of 2 functions pass');
  });

  it("holds a function's init to its own floor, the floor making its calls, and its bundle to the floor's", () => {
    // Act
    const [row] = ratioRows([{ handler: 'payments/list', bytes: 440_000, initMs: 300, initCpuMs: 280, floorInitMs: 250, floorInitCpuMs: 200 }], floor);
    // Assess
    expect(row).toEqual({
      handler: 'payments/list',
      bundle: { value: 440_000, floor: 400_000, ratio: 1.1, pass: true },
      init: { value: 300, floor: 250, ratio: 1.2, pass: true },
      initCpu: { value: 280, floor: 200, ratio: 1.4, pass: false },
    });
  });

  it('renders the floor first, then the functions up to the limit, each init beside its floor, failures in bold', () => {
    // Prepare
    const rows = ratioRows(
      [
        { handler: 'webhooks/stripe', bytes: 1_228_800, initMs: 300, initCpuMs: 100, floorInitMs: 240, floorInitCpuMs: 100 },
        { handler: 'auth/me', bytes: 409_600, initMs: 200, initCpuMs: 100 },
      ],
      floor,
    );
    // Act
    const table = renderRatioTable(rows, floor, 1);
    // Assess
    expect(table).toEqual([
      "| Function | Bundle | × floor (≤ 1.25) | Init ms | Its floor's | × its floor (≤ 1.25) | Init CPU ms | Its floor's | × its floor |",
      '|---|---|---|---|---|---|---|---|---|',
      '| **floor** (one read) | 390.6 KB | 1.00× | 200 | 200 | 1.00× | 100 | 100 | 1.00× |',
      '| `webhooks/stripe` | 1200.0 KB | 3.07× **FAIL** | 300 | 240 | 1.25× pass | 100 | 100 | 1.00× pass |',
    ]);
  });

  it('checks request budgets, telling an unmeasured one apart from a failed one', () => {
    expect(
      renderCountChecks([
        { name: 'ingestion', measured: 4, limit: 3 },
        { name: 'read', measured: 3, limit: 3 },
        { name: 'never ran', measured: undefined, limit: 3 },
      ]).slice(2),
    ).toEqual(['| ingestion | 4 | ≤ 3 | **FAIL** |', '| read | 3 | ≤ 3 | pass |', '| never ran | – | ≤ 3 | not measured |']);
  });

  it('shows other targets with pass or FAIL beside the figure, and a figure asked for without a limit as such', () => {
    expect(
      renderFigureChecks([
        { name: 'ingestion', shown: '0.31×', limit: '≥ 0.5×', pass: false },
        { name: 'busiest key', shown: '900', limit: '≤ 1,000', pass: true },
        { name: 'cost', shown: '$400.00', limit: '–' },
        { name: 'never ran', shown: undefined, limit: '≥ 0.5×', pass: false },
      ]).slice(2),
    ).toEqual([
      '| ingestion | 0.31× | ≥ 0.5× | **FAIL** |',
      '| busiest key | 900 | ≤ 1,000 | pass |',
      '| cost | $400.00 | – | no limit |',
      '| never ran | – | ≥ 0.5× | not measured |',
    ]);
  });
});

describe('ingestion against its floors', () => {
  const round = (events_per_second: number, requests: number, items: number, refused?: Record<string, number>) => ({
    events: 100,
    failed: 0,
    events_per_second,
    cpu_ms_per_event: { service: 9, floor: 4, dynamodb_local: 20 },
    requests_per_event: requests,
    items_per_event: items,
    ...(refused ? { refused } : {}),
  });
  const result = {
    events_per_round: 100,
    rounds: 1,
    concurrency: 16,
    recording: { events: 110 },
    server: { events_per_second: 34, rounds: [round(34, 3.2, 18.5)] },
    same_requests_floor: { events_per_second: 40, rounds: [round(40, 3.2, 18.5, { TransactionCanceledException: 2 })] },
    floor: { events_per_second: 100, rounds: [round(100, 1, 3)] },
    ratio_to_same_requests_floor: 0.85,
    ratio_to_floor: 0.34,
  };

  it('shows each side\'s requests and items beside its rate, and the ratio to each floor', () => {
    // Act
    const lines = renderIngestionThroughput(result);
    // Assess
    expect(lines).toContain('| local server | 34 | 34 | 0 | 3.2 · 18.5 | 9 · 20 |');
    expect(lines).toContain('| same-requests floor | 40 | 40 | 0 | 3.2 · 18.5 | 4 · 20 |');
    expect(lines).toContain("| three-item floor (the issue's first) | 100 | 100 | 0 | 1 · 3 | 4 · 20 |");
    expect(lines.at(-1)).toMatch(/^The local server reaches \*\*0\.85×\*\* the same-requests floor \(target ≥ 0\.8×; 2 replayed requests refused \(TransactionCanceledException\)\) and 0\.34× the three-item floor/);
  });

  it('judges the same-requests ratio and shows the first floor\'s without a verdict', () => {
    // Act
    const lines = renderTargets((name) => (name === 'ingestion' ? { local_server: result } : undefined));
    // Assess
    expect(lines).toContain('| Ingestion through the local server, against the floor making the same DynamoDB requests | 0.85× (34 / 40 events/s) | ≥ 0.8× | pass |');
    expect(lines.find((line) => line.startsWith("| Ingestion against the issue's first floor"))).toMatch(/\| 0\.34× \(34 \/ 100 events\/s\) \| – \| no limit \|$/);
  });
});

describe('capacity and cost', () => {
  it('sizes items as DynamoDB bills them: names and UTF-8 values', () => {
    expect(itemBytes({ pk: 'ab' })).toBe(3 + 2 + 2 + 1);
    expect(itemBytes('é')).toBe(2);
  });

  it('counts a transaction at two units per KB of each item, one per KB of each index entry, by the key it lands on', async () => {
    const big = 'x'.repeat(1500);
    const units = await transactionUnitsByKey(
      [
        { Put: { Item: { pk: 'T', sk: 'PAYMENT#1', gsi2pk: 'T#PAYMENTS#status#pending', gsi4pk: 'T#PAYMENTS#amount', body: big } } },
        { Update: { Key: { pk: 'T', sk: 'STATS#1' } } },
        { ConditionCheck: { Key: { pk: 'T', sk: 'ERASED#1' } } },
      ],
      async () => ({ pk: 'T', sk: 'STATS#1', count: 3 }),
    );
    expect(Object.fromEntries(units)).toEqual({ 'table T': 4 + 2 + 2, 'gsi2 T#PAYMENTS#status#pending': 2, 'gsi4 T#PAYMENTS#amount': 1 });
  });

  it('prices units, invocations, milliseconds, schedules and emails at the list prices', () => {
    const part = { read_units: 8, write_units: 16, dynamodb_requests: 3, lambda_invocations: 1, lambda_ms: 100, scheduled_invocations: 1, emails: 1 };
    const expected = 16 * 0.625e-6 + 8 * 0.125e-6 + 0.2e-6 + 0.1 * 0.5 * PRICES.lambda_gb_second_arm64 + 1e-6 + 0.0001;
    expect(dollars(part)).toBeCloseTo(expected, 12);
  });
});

describe('cold-start request paths', () => {
  const values = { 'webhooks:id': 'whe_1', 'spare:webhooks:id': 'whe_2', 'deliveries:delivery_id': 'del_1', 'webhooks:psp': 'acme', 'webhooks:connection_id': 'pcn_1' };
  const route = (method: string, path: string) => ROUTES.find((candidate) => candidate.method === method && candidate.path === path)!;

  it('fills each parameter by the literal segment before it', () => {
    expect(pathParametersFor(route('POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/replay'), values)).toEqual({ id: 'whe_1', delivery_id: 'del_1' });
    expect(pathParametersFor(route('POST', '/webhooks/{psp}/{connection_id}'), values)).toEqual({ psp: 'acme', connection_id: 'pcn_1' });
  });

  it('gives deleting routes the spare record, so the others keep theirs', () => {
    expect(pathParametersFor(route('DELETE', '/v1/webhooks/{id}'), values)).toEqual({ id: 'whe_2' });
  });

  it('refuses a parameter the fixture has no value for, naming it', () => {
    const unknown: Route = { method: 'GET', path: '/v1/things/{id}', handler: 'things/get', surface: 'rest', table: 'read' };
    expect(() => pathParametersFor(unknown, values)).toThrow('bench/fixture.ts seeds no value for things:id');
  });
});

describe("a cold start's calls", () => {
  it('tallies DynamoDB operations by their X-Amz-Target, in first-seen order', () => {
    expect(tallyOperations(['DynamoDB_20120810.GetItem', 'DynamoDB_20120810.UpdateItem', 'DynamoDB_20120810.Query', 'DynamoDB_20120810.Query'])).toEqual({
      GetItem: 1,
      UpdateItem: 1,
      Query: 2,
    });
    expect(tallyOperations([''])).toEqual({ unknown: 1 });
  });

  it('describes them for the summary, the other AWS calls apart', () => {
    expect(describeCalls({ dynamodb: { GetItem: 1, UpdateItem: 1, Query: 2 }, other_aws: 0 })).toBe('4: GetItem, UpdateItem, Query ×2');
    expect(describeCalls({ dynamodb: { GetItem: 2, UpdateItem: 2 }, other_aws: 1 })).toBe('4: GetItem ×2, UpdateItem ×2 · 1 other');
    expect(describeCalls({ dynamodb: {}, other_aws: 0 })).toBe('0');
    expect(describeCalls(undefined)).toBe('–');
  });

  it('groups calls in flight together into one round, and starts the next once all of them are answered', () => {
    // Prepare: a key read alone, then a window update beside a query, then a write sent before the query's answer came.
    const call = (operation: string, sent: number, answered: number) => ({ operation, input: { operation }, sent, answered });
    const relayed = [call('Query', 12, 20), call('GetItem', 0, 10), call('UpdateItem', 11, 15), call('PutItem', 18, 22), call('DeleteItem', 22, 25)];
    // Act
    const rounds = callRounds(relayed);
    // Assess
    expect(rounds.map((round) => round.map((one) => one.operation))).toEqual([['GetItem'], ['UpdateItem', 'Query', 'PutItem'], ['DeleteItem']]);
    expect(rounds[0]).toEqual([{ operation: 'GetItem', input: { operation: 'GetItem' } }]);
    expect(describeRounds(rounds)).toBe('GetItem → UpdateItem + Query + PutItem → DeleteItem');
    expect(describeRounds([])).toBe('none');
  });

  it('relays requests to the engine and records what it relayed since the last take', async () => {
    // Prepare: an upstream that answers with the target it was sent.
    const upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ target: request.headers['x-amz-target'] })));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const proxy = await countingProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    try {
      const send = (target: string) =>
        fetch(proxy.url, { method: 'POST', headers: { 'x-amz-target': target, 'content-type': 'application/x-amz-json-1.0' }, body: '{}' }).then((response) => response.json());
      // Act
      const answers = [await send('DynamoDB_20120810.GetItem'), await send('DynamoDB_20120810.Query'), await send('DynamoDB_20120810.GetItem')];
      // Assess
      expect(answers).toEqual([{ target: 'DynamoDB_20120810.GetItem' }, { target: 'DynamoDB_20120810.Query' }, { target: 'DynamoDB_20120810.GetItem' }]);
      expect(proxy.take()).toEqual({
        operations: { GetItem: 2, Query: 1 },
        rounds: [[{ operation: 'GetItem', input: {} }], [{ operation: 'Query', input: {} }], [{ operation: 'GetItem', input: {} }]],
      });
      expect(proxy.take()).toEqual({ operations: {}, rounds: [] });
    } finally {
      await proxy.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('takes the requests marked for one event and keeps the others', async () => {
    // Prepare
    const upstream = createServer((incoming, outgoing) => incoming.resume().on('end', () => outgoing.end('{}')));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const proxy = await countingProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    try {
      const send = (target: string, cause: string, body: object) =>
        fetch(proxy.url, { method: 'POST', headers: { 'x-amz-target': `DynamoDB_20120810.${target}`, 'x-recorded-for': cause }, body: JSON.stringify(body) }).then((response) => response.text());
      // Act
      await send('GetItem', 'evt_1', { Key: 1 });
      await send('Query', 'evt_2', { Key: 2 });
      await send('TransactWriteItems', 'evt_1', { TransactItems: [] });
      // Assess
      expect(proxy.takeCausedBy('evt_1')).toEqual([[{ operation: 'GetItem', input: { Key: 1 } }], [{ operation: 'TransactWriteItems', input: { TransactItems: [] } }]]);
      expect(proxy.takeCausedBy('evt_1')).toEqual([]);
      expect(proxy.take().rounds).toEqual([[{ operation: 'Query', input: { Key: 2 } }]]);
    } finally {
      await proxy.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});
