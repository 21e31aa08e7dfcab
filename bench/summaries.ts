/**
 * The summary sections of the bundle, cold-start, latency and throughput benches and of the
 * targets, rendered from their results files (bench/run.ts writes them to bench/results/summary.md).
 */
import { describeCalls } from './request-tally.ts';
import { kilobytes, passCount, ratioRows, renderCountChecks, renderFigureChecks, renderRatioTable, TARGETS, type FigureCheck, type FunctionFigures, type Ratio, type RatioRow } from './targets.ts';

type Results = Record<string, any>;
/** Another bench's latest results, if it ever ran. */
export type Lookup = (bench: string) => Results | undefined;

const contributorList = (contributors: { name: string; bytes: number }[]) => contributors.slice(0, 4).map((c) => `${c.name} ${kilobytes(c.bytes)}`).join(' · ');

export function renderBundles(result: Results): string[] {
  const functions = [...result.functions].sort((a, b) => b.bytes - a.bytes);
  return [
    '## Bundles',
    '',
    `Every function bundled as CDK bundles it (lib/bundling.ts: ESM, node22, minified, the SDK inside), ${functions.length} bundles and ${result.floor_variants.length} floor variants in ${result.build_seconds} s. ` +
      'Sizes are the .mjs alone (source maps ship beside it); contributors are the bytes each package left in the bundle, scopes together.',
    '',
    '| Floor variant | Bundle | Biggest contributors |',
    '|---|---|---|',
    ...result.floor_variants.map((floor: any) => `| ${floor.name}${floor.name === result.floor ? ' (**the floor**)' : ''} | ${kilobytes(floor.bytes)} | ${contributorList(floor.contributors)} |`),
    '',
    '| Function | Bundle | Biggest contributors |',
    '|---|---|---|',
    ...functions.map((fn: any) => `| \`${fn.handler}\` | ${kilobytes(fn.bytes)} | ${contributorList(fn.contributors)} |`),
    '',
  ];
}

const fastest = (variants: any[], figure: string) => {
  const best = [...variants].sort((a, b) => a[figure] - b[figure])[0];
  return best ? `${best.name} (${best[figure]} ms)` : '–';
};

const answers = (outcomes: Record<string, number>) => Object.entries(outcomes).map(([outcome, count]) => `${outcome} ×${count}`).join(', ');

export function renderColdStart(result: Results): string[] {
  const functions = [...result.functions].sort((a, b) => b.init_ms - a.init_ms);
  const failed = functions.filter((fn: any) => fn.errors);
  // The ways to package the floor, not the floor started again.
  const packagings = result.floor_variants.filter((floor: any) => !floor.repeat);
  const row = (name: string, figures: any) =>
    `| ${name} | ${figures.import_ms} | ${figures.import_cpu_ms} | ${figures.first_request_ms} | ${figures.init_ms} | ${figures.init_cpu_ms} | ${answers(figures.outcomes)} | ${describeCalls(figures.first_request_calls)} |`;
  const functionRow = (fn: any) =>
    `| \`${fn.handler}\` | ${fn.import_ms} | ${fn.import_cpu_ms} | ${fn.first_request_ms} | ${fn.init_ms} | ${fn.init_cpu_ms} | ${fn.floor?.init_ms ?? '–'} | ${fn.floor?.init_cpu_ms ?? '–'} | ${answers(fn.outcomes)} | ${describeCalls(fn.first_request_calls)} | ${fn.call_rounds ?? '–'} |`;
  return [
    '## Cold start',
    '',
    `A fresh \`node\` per sample imports the bundle and handles one event (ms, median of ${result.runs} after a round of imports alone; init = import + first request, wall time; ` +
      'the CPU columns are the process\'s CPU time, steadier than wall time on a busy machine), in AWS mode: ' +
      'configuration read at import, the system clock, the AWS adapters, DynamoDB Local seeded with a merchant, its key and records and warmed up with some 13,000 requests of every kind the functions make (its JVM compiles each path as it is used; DynamoDB in AWS is always warm), other AWS APIs answered by a local stub. ' +
      'Routes get their API Gateway event with the admin key (writes an empty JSON body, so 400 is a normal answer), jobs, the stream and the queue worker their own events. ' +
      'The runtime-SDK variants load the SDK from node_modules, standing in for the copy in the Lambda runtime (another version, read from its own files). ' +
      'Before the timed rounds each bundle handles its event twice through a counting proxy (the first warms the machine and uses up what a first request uses up): the second is what every timed sample asks of DynamoDB, by operation, and of the other AWS APIs, ' +
      'and in rounds (calls in flight together, `+`; one round after the other, `→`). Each function\'s floor is the floor bundle making exactly those calls in those rounds (`FLOOR_CALLS`, bench/floor/handler.ts), timed in the same shuffled rounds.',
    '',
    '| Floor variant | Import | Import CPU | First request | Init | Init CPU | Answered | First request\'s calls |',
    '|---|---|---|---|---|---|---|---|',
    ...result.floor_variants.map((floor: any) => row(`${floor.name}${floor.name === result.floor ? ' (**the floor**)' : ''}`, floor)),
    '',
    `Fastest floor variant in this run by init: ${fastest(packagings, 'init_ms')}; by import CPU: ${fastest(packagings, 'import_cpu_ms')} ` +
      '(the choice of the floor: docs/decisions.md, "Cold start held to a floor making the same calls").',
    '',
    '| Function | Import | Import CPU | First request | Init | Init CPU | Its floor\'s init | Its floor\'s init CPU | Answered | First request\'s calls | In rounds |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...functions.map(functionRow),
    '',
    ...failed.map((fn: any) => `- \`${fn.handler}\`: ${fn.errors.join('; ')}`),
    ...(failed.length ? [''] : []),
  ];
}

/** The local server against its two ingestion floors, round by round. */
export function renderIngestionThroughput(result: Results): string[] {
  if (!result.floor) return [`Through the local server: **${result.events_per_second} events/s** (${result.events} signed generic events, ${result.concurrency} in flight, ${result.failed} failed).`];
  const rounds = (runs: any[]) => runs.map((run) => run.events_per_second).join(', ');
  const failed = (runs: any[]) => runs.reduce((sum, run) => sum + run.failed, 0);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  const cpu = (runs: any[], own: string) =>
    runs[0]?.cpu_ms_per_event ? `${median(runs.map((run) => run.cpu_ms_per_event[own]))} · ${median(runs.map((run) => run.cpu_ms_per_event.dynamodb_local))}` : '–';
  const sent = (runs: any[]) => (runs[0]?.requests_per_event === undefined ? '–' : `${median(runs.map((run) => run.requests_per_event))} · ${median(runs.map((run) => run.items_per_event))}`);
  const refused = (runs: any[]) => {
    const calls = runs.flatMap((run) => Object.entries(run.refused ?? {}) as [string, number][]);
    return calls.length ? `; ${calls.reduce((sum, [, count]) => sum + count, 0)} replayed requests refused (${[...new Set(calls.map(([name]) => name))].join(', ')})` : '';
  };
  const row = (name: string, contender: any, own: string) =>
    `| ${name} | ${contender.events_per_second} | ${rounds(contender.rounds)} | ${failed(contender.rounds)} | ${sent(contender.rounds)} | ${cpu(contender.rounds, own)} |`;
  const same = result.same_requests_floor;
  return [
    `Through the local server against two floors, on the same DynamoDB Local with the same client and the same ${result.events_per_round} signed generic events per round, ` +
      `${result.concurrency} in flight, ${result.rounds} rounds interleaved. Both floors (\`bench/floor/ingestion-floor.mjs\`) do HTTP, the HMAC check and JSON parse; ` +
      (same
        ? `the **same-requests floor** then makes exactly the DynamoDB requests the service made for that event (recorded from a second local server on the same engine, ${result.recording.events} events, \`bench/ingestion-recording.ts\`), ` +
          'the **three-item floor** (the issue\'s first) one three-item `TransactWriteItems`. '
        : 'then one three-item `TransactWriteItems`. ') +
      'Requests and items per event: the service\'s as recorded, each floor\'s as it sent them.',
    '',
    '| | Events/s (all rounds) | Events/s per round | Refused | DynamoDB requests · items per event (median round) | CPU ms per event: its node process · DynamoDB Local (median round) |',
    '|---|---|---|---|---|---|',
    row('local server', result.server, 'service'),
    ...(same ? [row('same-requests floor', same, 'floor')] : []),
    row(same ? 'three-item floor (the issue\'s first)' : 'floor', result.floor, 'floor'),
    '',
    ...(same
      ? [
          `The local server reaches **${result.ratio_to_same_requests_floor.toFixed(2)}×** the same-requests floor (target ≥ ${TARGETS.ingestionSameRequestsRatio}×${refused(same.rounds)}) ` +
            `and ${result.ratio_to_floor.toFixed(2)}× the three-item floor: the gap to the latter is mostly the engine's work on the service's larger transactions (DynamoDB Local's CPU per event), ` +
            'which AWS bills as write units (the cost bench) rather than as time.',
        ]
      : [`The local server reaches **${result.ratio_to_floor.toFixed(2)}×** the floor.`]),
  ];
}

const money = (dollars: number) => `$${dollars.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** Dollars per million failures, part by part, and the floor's single write. */
/** DynamoDB's share of a part's dollars per million failures: units only, so it does not move with the machine's load as Lambda milliseconds do. */
function dynamodbDollars(part: any, prices: any): number {
  return Math.round((part.write_units * prices.dynamodb_write_request_unit + part.read_units * prices.dynamodb_read_request_unit) * 1e8) / 100;
}

/** `a → b`, or `a` alone when nothing changed. */
const change = (before: number | undefined, after: number, format: (n: number) => string = String) =>
  before === undefined ? `– → ${format(after)}` : before === after ? format(after) : `${format(before)} → ${format(after)}`;

export function renderCost(result: Results, lookup: Lookup = () => undefined): string[] {
  const { prices } = result;
  const row = (part: any) =>
    `| ${part.part} | ${part.read_units} | ${part.write_units} | ${part.dynamodb_requests} | ${part.lambda_invocations} | ${part.lambda_ms} | ${part.scheduled_invocations} | ${part.emails} | ${money(part.dollars_per_million)} |`;
  const before = lookup('cost-before');
  const beforePart = (name: string) => before?.parts.find((part: any) => part.part === name);
  const comparison = before
    ? [
        `Before → after the waste fixes of issue 26 (before: ${before.note}, ${before.measured_at.slice(0, 10)}). DynamoDB dollars come from units alone; the whole part's dollars also carry Lambda milliseconds, which move with the machine's load between runs.`,
        '',
        '| Part | Write units | Read units | DynamoDB requests | DynamoDB $ per million | $ per million (all) |',
        '|---|---|---|---|---|---|',
        ...result.parts.map((part: any) => {
          const was = beforePart(part.part);
          return `| ${part.part} | ${change(was?.write_units, part.write_units)} | ${change(was?.read_units, part.read_units)} | ${change(was?.dynamodb_requests, part.dynamodb_requests)} | ${change(was && dynamodbDollars(was, prices), dynamodbDollars(part, prices), money)} | ${change(was?.dollars_per_million, part.dollars_per_million, money)} |`;
        }),
        `| **a failure's whole life** | ${change(sumOf(before.parts, 'write_units'), sumOf(result.parts, 'write_units'))} | ${change(sumOf(before.parts, 'read_units'), sumOf(result.parts, 'read_units'))} | ${change(sumOf(before.parts, 'dynamodb_requests'), sumOf(result.parts, 'dynamodb_requests'))} | ${change(Math.round(before.parts.reduce((total: number, part: any) => total + dynamodbDollars(part, prices), 0) * 100) / 100, Math.round(result.parts.reduce((total: number, part: any) => total + dynamodbDollars(part, prices), 0) * 100) / 100, money)} | ${change(before.dollars_per_million_failures, result.dollars_per_million_failures, money)} |`,
        '',
      ]
    : [];
  const costly = result.parts.flatMap((part: any) => (part.requests ?? []).filter((request: any) => request.write_units >= 4).map((request: any) => ({ part: part.part, ...request })));
  return [
    '## Cost per million failures',
    '',
    "One failure's whole life, in process through the real handlers, jobs and stream consumer: a soft decline whose card keeps declining (sandbox `9995`), " +
      'retried until its retries run out, enrolled in a three-email campaign, the first email sent, then paid (the processor\'s success webhook), its customer erased; ' +
      'one outbound webhook endpoint subscribed to every event. Read and write units from each request\'s ConsumedCapacity, except transactions, which DynamoDB Local ' +
      'reports wrongly: those by AWS\'s rule (2 per KB of each item written or checked, 1 per KB of each index entry; `bench/cost.ts`). Lambda milliseconds are wall time ' +
      'here, against DynamoDB Local on a shared 2-core machine, so above what AWS would bill; a second life is measured after a first that loads every module. ' +
      'The daily calendar sweep, which runs whatever fails, is left out.',
    '',
    `Prices (${prices.region}, read ${prices.read_at}, free tiers left out): DynamoDB on-demand $${prices.dynamodb_write_request_unit * 1e6} per million write and ` +
      `$${prices.dynamodb_read_request_unit * 1e6} per million read request units (aws.amazon.com/dynamodb/pricing/on-demand); Lambda arm64 ${money(prices.lambda_request * 1e6)} per million requests and ` +
      `$${prices.lambda_gb_second_arm64} per GB-second at ${prices.lambda_memory_gb * 1024} MB (aws.amazon.com/lambda/pricing); EventBridge Scheduler ${money(prices.scheduler_invocation * 1e6)} per million invocations ` +
      `(aws.amazon.com/eventbridge/pricing); SES ${money(prices.email * 1000)} per 1,000 emails (aws.amazon.com/ses/pricing).`,
    '',
    '| Part | Read units | Write units | DynamoDB requests | Lambda invocations | Lambda ms | Scheduled invocations | Emails | $ per million failures |',
    '|---|---|---|---|---|---|---|---|---|',
    ...result.parts.map(row),
    `| **a failure's whole life** | | | | | | | | **${money(result.dollars_per_million_failures)}** |`,
    row(result.floor),
    '',
    `A failure costs ${result.ratio_to_floor}× the floor's single write.`,
    '',
    ...comparison,
    ...(costly.length === 0
      ? []
      : [
          'Where the write units go: each request of 4 or more write units, by operation and the kinds of item it names (its sort key\'s prefix; the search index\'s entries are keyed by customer id). The per-item and per-index split of each is in `bench/results/cost.json`.',
          '',
          '| Part | Request | Times | Write units | Read units |',
          '|---|---|---|---|---|',
          ...costly.map((request: any) => `| ${request.part} | \`${request.request.replace(/cus_[0-9a-z]{26}/g, '<customer>')}\` | ${request.requests} | ${request.write_units} | ${request.read_units} |`),
          '',
        ]),
  ];
}

const sumOf = (parts: any[], field: string): number => Math.round(parts.reduce((total, part) => total + part[field], 0) * 10) / 10;

/** The busiest key of the table and of each index under one tenant's burst, and at the renewal day's rate. */
export function renderHotPartition(result: Results): string[] {
  const { limits } = result;
  return [
    "## One tenant's hot partition",
    '',
    `${result.events} new failures for one merchant, ${result.concurrency} in flight through the webhook handler in process (${result.events_per_second} events/s on DynamoDB Local, ${result.refused} refused), ` +
      'then the stream consumers and the deliveries to one outbound endpoint over the events they wrote. Units by the key they land on (transactions by AWS\'s rule, `bench/cost.ts`); ' +
      `the renewal day is 100,000 failures in an hour (${result.renewal_failures_per_second}/s on average), against ${limits.write_units_per_second.toLocaleString('en-US')} write and ${limits.read_units_per_second.toLocaleString('en-US')} read units per second per partition. ` +
      'The calculation, with dashboard and API reads, is in docs/data-model.md, "One tenant\'s busiest keys".',
    '',
    '| Key | Write units per failure | Read units per failure | Write units/s in the burst | Renewal day: write / read units/s | Peak (2×): write / read units/s | Within the limits at the peak |',
    '|---|---|---|---|---|---|---|',
    ...[...result.busiest.map((row: any) => ['busiest', row]), ...(result.tenant_keys ?? []).map((row: any) => ['tenant', row])].map(
      ([kind, row]: any) =>
        `| ${kind === 'busiest' ? 'busiest: ' : ''}\`${row.key}\` | ${row.write_units_per_failure} | ${row.read_units_per_failure} | ${row.burst_write_units_per_second} | ${row.renewal_write_units_per_second} / ${row.renewal_read_units_per_second} | ${row.peak_write_units_per_second ?? '–'} / ${row.peak_read_units_per_second ?? '–'} | ${row.verdict ?? (row.renewal_write_units_per_second > limits.write_units_per_second ? 'FAIL' : 'pass')} |`,
    ),
    '',
  ];
}

export function renderLatency(result: Results, lookup: Lookup): string[] {
  const ingestion = lookup('ingestion')?.in_process?.new_customer_failure;
  const row = (name: string, r: any) =>
    `| ${name} | ${r.latency_ms.median} / ${r.latency_ms.p99} | ${r.dynamodb_requests.median} / ${r.dynamodb_requests.max} | ${r.scheduler_calls?.median ?? '–'} |`;
  return [
    '## Hot routes in process',
    '',
    `Real handlers and middleware through the local dispatch against DynamoDB Local, ${result.samples} calls per route after warm-up, each on its own record. ` +
      'Scheduler calls are the local scheduler\'s writes (EventBridge Scheduler in AWS), not counted as DynamoDB requests.',
    '',
    '| Route | Latency ms (median / p99) | DynamoDB requests (median / max) | Scheduler calls |',
    '|---|---|---|---|',
    ...(ingestion ? [row('webhook ingestion, new failure (ingestion bench)', ingestion)] : []),
    ...Object.entries(result.routes as Record<string, any>).map(([route, r]) => row(route, r)),
    '',
  ];
}

export function renderThroughput(result: Results): string[] {
  return [
    '## Local server throughput',
    '',
    `autocannon against \`npm start -- --memory\`, ${result.connections} connections for ${result.seconds} s per route, ` +
      `the merchant's rate limit raised to ${result.rate_limit_per_minute.toLocaleString('en-US')}/min with the ops CLI and a fresh window per run.`,
    '',
    '| Route | Requests/s | Latency ms (p50 / p99) | Requests | Non-2xx | Errors |',
    '|---|---|---|---|---|---|',
    ...Object.entries(result.routes as Record<string, any>).map(
      ([route, r]) => `| ${route} | ${r.requests_per_second} | ${r.latency_ms.p50} / ${r.latency_ms.p99} | ${r.requests} | ${r.non_2xx} | ${r.errors} |`,
    ),
    '',
  ];
}

/** Each function's bundle size and (when it started) cold start, joined by handler. */
function functionFigures(bundles: Results | undefined, coldStart: Results | undefined): FunctionFigures[] {
  const handlers = new Set<string>([...(bundles?.functions ?? []), ...(coldStart?.functions ?? [])].map((fn: any) => fn.handler));
  return [...handlers].map((handler) => {
    const started = coldStart?.functions.find((fn: any) => fn.handler === handler);
    return {
      handler,
      bytes: bundles?.functions.find((fn: any) => fn.handler === handler)?.bytes,
      ...(started && !started.outcomes['init failed'] ? { initMs: started.init_ms, initCpuMs: started.init_cpu_ms } : {}),
      ...(started?.floor ? { floorInitMs: started.floor.init_ms, floorInitCpuMs: started.floor.init_cpu_ms } : {}),
    };
  });
}

const floorOf = (result: Results | undefined) => result?.floor_variants.find((floor: any) => floor.name === result.floor);
/** The floor's cold-start figures the ratios use: both its names' samples together where the run has them. */
const coldFloorOf = (result: Results | undefined) => (result?.floor_pooled ? { name: result.floor, ...result.floor_pooled } : floorOf(result));

/** How far the functions' own floors sit above the one-read floor: the part of init that is the calls alone. */
function callsShare(coldStart: Results | undefined): string[] {
  const floor = coldFloorOf(coldStart);
  if (!floor) return [];
  const own = (coldStart?.functions ?? []).filter((fn: any) => fn.floor).map((fn: any) => fn.floor.init_ms / floor.init_ms);
  if (own.length === 0) return [];
  return [
    `Each function's init is held to its own floor, the floor bundle making that function's first request's DynamoDB calls in the same rounds: those floors' inits are ` +
      `${Math.min(...own).toFixed(2)}-${Math.max(...own).toFixed(2)}× the one-read floor's (${floor.init_ms} ms), the part of a function's init that is its calls alone.`,
    '',
  ];
}

/** The floor's bundle started again under another name: the distance between two measurements of one bundle, i.e. the run's noise. */
function noiseBand(coldStart: Results | undefined): string[] {
  const floor = floorOf(coldStart);
  const again = coldStart?.floor_variants.find((variant: any) => variant.repeat);
  if (!floor || !again) return [];
  const pooled = coldFloorOf(coldStart);
  return [
    `The floor's bundle is started twice a round under two names: init ${floor.init_ms} and ${again.init_ms} ms, ${(again.init_ms / floor.init_ms).toFixed(2)}× apart ` +
      `(CPU ${(again.init_cpu_ms / floor.init_cpu_ms).toFixed(2)}×); the ratios use the median of both together (${pooled.init_ms} ms). ` +
      `Two measurements of one bundle differ that much in this run, so a ratio that close to ${TARGETS.initRatio} is a verdict of the run, not of the function.`,
    '',
  ];
}

/** The ratio table (all functions, or the worst `limit`) and the request budgets, from the latest results. */
export function renderTargets(lookup: Lookup, limit?: number): string[] {
  const bundles = lookup('bundles');
  const coldStart = lookup('cold-start');
  const floor = { bytes: floorOf(bundles)?.bytes, initMs: coldFloorOf(coldStart)?.init_ms, initCpuMs: coldFloorOf(coldStart)?.init_cpu_ms };
  const rows = ratioRows(functionFigures(bundles, coldStart), floor);
  const ingestion = lookup('ingestion')?.in_process;
  const reads = lookup('latency')?.routes;
  const figures = [...perFunctionChecks(rows), ...figureChecks(lookup)];
  return [
    '## Targets',
    '',
    `Against the floor (${bundles?.floor ?? coldStart?.floor ?? 'not measured'}) of the same run: bundle ≤ ${TARGETS.bundleRatio}× the floor's (${passCount(rows, (row) => row.bundle)}), ` +
      `init ≤ ${TARGETS.initRatio}× its own floor's, the floor making the function's DynamoDB calls in the same rounds (${passCount(rows, (row) => row.init)}; by CPU time ${passCount(rows, (row) => row.initCpu)}); worst first. ` +
      'The verdict is on wall time; the CPU ratio beside it tells a slow function from a busy machine. A function that failed its cold start has no init figure.',
    '',
    ...renderRatioTable(rows, floor, limit),
    '',
    ...callsShare(coldStart),
    ...noiseBand(coldStart),
    ...renderCountChecks([
      { name: "Ingestion, a new customer's failure", measured: ingestion?.new_customer_failure?.dynamodb_requests.median, limit: TARGETS.ingestionRequests },
      { name: "Ingestion, a known customer's new failure", measured: ingestion?.existing_customer_failure?.dynamodb_requests.median, limit: TARGETS.ingestionRequests },
      { name: 'Authenticated read, GET /v1/payments', measured: reads?.['GET /v1/payments']?.dynamodb_requests.median, limit: TARGETS.authenticatedReadRequests },
      { name: 'Authenticated read, GET /v1/payments/{id}', measured: reads?.['GET /v1/payments/{id}']?.dynamodb_requests.median, limit: TARGETS.authenticatedReadRequests },
    ]),
    '',
    ...(figures.length ? [...renderFigureChecks(figures), ''] : []),
  ];
}

/** Issue #26's per-function targets in one line each: how many pass, and the worst. */
function perFunctionChecks(rows: readonly RatioRow[]): FigureCheck[] {
  const check = (name: string, pick: (row: RatioRow) => Ratio | undefined, limit: number): FigureCheck[] => {
    const measured = rows.flatMap((row) => (pick(row) ? [{ handler: row.handler, ratio: pick(row)! }] : []));
    if (measured.length === 0) return [];
    const worst = measured.reduce((a, b) => (b.ratio.ratio > a.ratio.ratio ? b : a));
    const passing = measured.filter((one) => one.ratio.pass).length;
    return [
      {
        name,
        shown: `${passing} of ${measured.length} functions pass; worst \`${worst.handler}\` ${worst.ratio.ratio.toFixed(2)}×`,
        limit: `≤ ${limit}× each`,
        pass: passing === measured.length,
      },
    ];
  };
  return [
    ...check("Cold start: each function's init against its floor making the same DynamoDB calls in the same rounds", (row) => row.init, TARGETS.initRatio),
    ...check("Bundles against the floor's", (row) => row.bundle, TARGETS.bundleRatio),
  ];
}

/** The throughput, capacity and cost targets, from the benches that measure them. */
function figureChecks(lookup: Lookup): FigureCheck[] {
  const throughput = lookup('ingestion')?.local_server;
  const checks: FigureCheck[] = [];
  if (throughput?.same_requests_floor) {
    checks.push(
      {
        name: 'Ingestion through the local server, against the floor making the same DynamoDB requests',
        shown: `${throughput.ratio_to_same_requests_floor.toFixed(2)}× (${throughput.server.events_per_second} / ${throughput.same_requests_floor.events_per_second} events/s)`,
        limit: `≥ ${TARGETS.ingestionSameRequestsRatio}×`,
        pass: throughput.ratio_to_same_requests_floor >= TARGETS.ingestionSameRequestsRatio,
      },
      {
        name: "Ingestion against the issue's first floor (one three-item transaction): engine-bound, the service's transactions name more items",
        shown: `${throughput.ratio_to_floor.toFixed(2)}× (${throughput.server.events_per_second} / ${throughput.floor.events_per_second} events/s)`,
        limit: '–',
      },
    );
  }
  const hot = lookup('hot-partition');
  if (hot) {
    const peak = (row: any) => row.peak_write_units_per_second ?? row.renewal_write_units_per_second;
    const [worst] = [...hot.busiest].sort((a: any, b: any) => peak(b) - peak(a));
    const [worstRead] = [...hot.busiest].sort((a: any, b: any) => b.renewal_read_units_per_second - a.renewal_read_units_per_second);
    const factor = hot.peak_factor ?? 1;
    checks.push(
      {
        name: `One tenant's busiest key at 100,000 failures an hour, its peak (${factor}×): write units/s`,
        shown: `${peak(worst)} on \`${worst.key}\` (${worst.renewal_write_units_per_second} on average)`,
        limit: `≤ ${hot.limits.write_units_per_second.toLocaleString('en-US')}`,
        pass: peak(worst) <= hot.limits.write_units_per_second,
      },
      {
        name: `One tenant's busiest key at 100,000 failures an hour, its peak (${factor}×): read units/s`,
        shown: `${worstRead.peak_read_units_per_second ?? worstRead.renewal_read_units_per_second} on \`${worstRead.key}\``,
        limit: `≤ ${hot.limits.read_units_per_second.toLocaleString('en-US')}`,
        pass: (worstRead.peak_read_units_per_second ?? worstRead.renewal_read_units_per_second) <= hot.limits.read_units_per_second,
      },
    );
  }
  const cost = lookup('cost');
  if (cost) {
    checks.push({
      name: 'Dollars per million failures (whole life), against the floor\'s single write',
      shown: `${money(cost.dollars_per_million_failures)} (${cost.ratio_to_floor}× the floor's ${money(cost.floor_dollars_per_million)})`,
      limit: '–',
    });
  }
  return checks;
}
