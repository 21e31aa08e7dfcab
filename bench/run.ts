/**
 * `npm run bench`: measures and writes bench/results/*.json plus bench/results/summary.md.
 * Optional arguments: which benches to run (default all), e.g. `npm run bench -- bundles cold-start`.
 * The summary keeps the sections of benches not run this time, rendered from their last results
 * file, and ends with the targets (ratios to the floor, request budgets) from the latest results.
 * `npm run bench -- summary` measures nothing and renders the summary from the latest results.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderLists } from './list-report.ts';
import { progress } from './progress.ts';
import { renderBundles, renderColdStart, renderCost, renderHotPartition, renderIngestionThroughput, renderLatency, renderTargets, renderThroughput, type Lookup } from './summaries.ts';
import { benchEngine, RESULTS_DIR, writeResult } from './support.ts';

const selected = new Set(process.argv.slice(2));
const SUMMARY_ONLY = 'summary';
const wants = (name: string) => selected.size === 0 || selected.has(name);

/** Customers per merchant in the list bench (two payments each); BENCH_LIST_SIZES=10000,100000,1000000 for the million. */
const LIST_SIZES = (process.env.BENCH_LIST_SIZES ?? '10000,100000').split(',').map(Number);
/** Fresh processes per bundle in the cold-start bench (medians over these). */
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
/** Events per round and rounds of the ingestion bench's server-against-floor comparison. */
const INGESTION_EVENTS = Number(process.env.BENCH_INGESTION_EVENTS ?? 2000);
const INGESTION_ROUNDS = Number(process.env.BENCH_INGESTION_ROUNDS ?? 3);
/** Concurrent failure events for one tenant in the hot-partition bench. */
const HOT_PARTITION_EVENTS = Number(process.env.BENCH_HOT_PARTITION_EVENTS ?? 300);
/** Calls per route in the latency bench. */
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100);
/** Seconds per route and connections of the throughput bench. */
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10);
const THROUGHPUT_CONNECTIONS = Number(process.env.BENCH_THROUGHPUT_CONNECTIONS ?? 16);
/** Failure events per chaos run, and the fault rates run after the fault-free one. */
const CHAOS_FAILURES = Number(process.env.BENCH_CHAOS_FAILURES ?? 60);
const CHAOS_RATES = (process.env.BENCH_CHAOS_RATES ?? '0.05,0.2,0.5').split(',').map(Number);

interface Bench {
  name: string;
  run: () => Promise<unknown>;
  render: (result: any, lookup: Lookup) => string[];
}

/** Cards in the network rules bench's portfolio; BENCH_NETWORK_CARDS=500 for a quick look. */
const NETWORK_CARDS = Number(process.env.BENCH_NETWORK_CARDS ?? 3000);

const BENCHES: Bench[] = [
  {
    name: 'network-rules',
    run: async () => {
      const { benchNetworkRules } = await import('./network-rules.ts');
      return benchNetworkRules(NETWORK_CARDS);
    },
    render: (r) => [
      '## Card network rules',
      '',
      `${r.cards.toLocaleString('en-US')} cards (${r.visa_cards} Visa, the rest Mastercard), ${r.payments.toLocaleString('en-US')} failed payments over 60 days, decline codes drawn from the spec's Stripe and Braintree tables; fees are an ${r.fees_note}.`,
      '',
      '| Schedule | Attempts | Violations | Recoveries | Held back | Estimated fees |',
      '|---|---|---|---|---|---|',
      `| retry policy + network guard | ${r.guarded.attempts} | ${r.guarded.violations} | ${r.guarded.recoveries} | ${r.guarded.held} | $${(r.guarded.fees_cents / 100).toFixed(2)} |`,
      `| naive: 8 tries in 2 weeks | ${r.naive_8_in_14_days.attempts} | ${r.naive_8_in_14_days.violations} | ${r.naive_8_in_14_days.recoveries} | – | $${(r.naive_8_in_14_days.fees_cents / 100).toFixed(2)} |`,
      '',
    ],
  },
  {
    name: 'ingestion',
    run: async () => {
      const { benchIngestionInProcess, benchIngestionThroughput } = await import('./ingestion.ts');
      return { in_process: await benchIngestionInProcess(200), local_server: await benchIngestionThroughput(INGESTION_EVENTS, INGESTION_ROUNDS, 16) };
    },
    render: ({ in_process: inProcess, local_server: throughput }) => [
      '## Webhook ingestion',
      '',
      '| Case | DynamoDB requests (median / max) | Transaction items (median / max) | Scheduler calls | Latency ms (median / p99) |',
      '|---|---|---|---|---|',
      ...Object.entries(inProcess as Record<string, any>).map(
        ([name, r]) =>
          `| ${name.replaceAll('_', ' ')} | ${r.dynamodb_requests.median} / ${r.dynamodb_requests.max} | ${r.transaction_items ? `${r.transaction_items.median} / ${r.transaction_items.max}` : '–'} | ${r.scheduler_calls?.median ?? '–'} | ${r.latency_ms.median} / ${r.latency_ms.p99} |`,
      ),
      '',
      ...renderIngestionThroughput(throughput),
      '',
    ],
  },
  {
    name: 'lists',
    run: async () => {
      const { benchLists } = await import('./lists.ts');
      return { sizes: await benchLists(LIST_SIZES) };
    },
    render: (result) => renderLists(result),
  },
  {
    name: 'cost',
    run: async () => (await import('./cost.ts')).benchCost(),
    render: renderCost,
  },
  {
    name: 'hot-partition',
    run: async () => (await import('./hot-partition.ts')).benchHotPartition(HOT_PARTITION_EVENTS, 16),
    render: renderHotPartition,
  },
  {
    name: 'bundles',
    run: async () => (await import('./bundles.ts')).benchBundles(),
    render: renderBundles,
  },
  {
    name: 'cold-start',
    run: async () => (await import('./cold-start.ts')).benchColdStart(COLD_RUNS),
    render: renderColdStart,
  },
  {
    name: 'latency',
    run: async () => (await import('./latency.ts')).benchLatency(LATENCY_SAMPLES),
    render: renderLatency,
  },
  {
    name: 'throughput',
    run: async () => (await import('./throughput.ts')).benchThroughput(THROUGHPUT_SECONDS, THROUGHPUT_CONNECTIONS),
    render: renderThroughput,
  },
  {
    name: 'chaos',
    run: async () => {
      const { benchChaos } = await import('./chaos.ts');
      return benchChaos(CHAOS_FAILURES, CHAOS_RATES);
    },
    render: ({ failures, seed, rows, total_seconds }) => [
      '## Faults survived',
      '',
      `${failures} failure events (seed ${seed}) through the local server behind the DynamoDB fault proxy, the scheduler, email, sms and completion queue failing at the same rate, ` +
        'with manual retries, an erasure half-way, subscribers through the cancel widget and outbound deliveries; every refused delivery or call sent again, dead letters redriven once the faults stop, the clock run until nothing is scheduled; compared with the fault-free run (docs/faults.md). ' +
        'Duplicates and lost: stored events, emails and sms, payments and outbound events delivered, more or fewer than the fault-free run. ' +
        `One run after another${total_seconds ? `, ${Math.round(total_seconds / 60)} min in all` : ''}; the load average is the shared machine's as each run ended.`,
      '',
      '| Fault rate | Events sent | Deliveries | Acknowledged | Payments stored | Payments in another state | Events stored | Duplicates | Lost | DynamoDB faults | Port faults | Redriven | Time to converge (s) | Load average |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...(rows as any[]).map(
        (r) =>
          `| ${r.rate * 100}% | ${r.events_sent} | ${r.deliveries} | ${r.acknowledged} | ${r.payments_stored} | ${r.payments_differing} | ${r.events_stored} | ${r.duplicates.length} | ${r.lost.length} | ${r.dynamodb_faults} | ${r.port_faults} | ${r.redriven ?? '–'} | ${r.converge_seconds} | ${r.load_average ?? '–'} |`,
      ),
      '',
      ...(rows as any[]).flatMap((r) => [...r.duplicates.map((d: string) => `- ${r.rate * 100}% duplicate: ${d}`), ...r.lost.map((l: string) => `- ${r.rate * 100}% lost: ${l}`)]),
      '',
    ],
  },
];

const unknown = [...selected].filter((name) => name !== SUMMARY_ONLY && !BENCHES.some((bench) => bench.name === name));
if (unknown.length > 0) {
  console.error(`Unknown bench ${unknown.join(', ')}; choose from ${BENCHES.map((bench) => bench.name).join(', ')}, or ${SUMMARY_ONLY} alone`);
  process.exit(2);
}

/** A bench's latest results file, if it ever ran. */
const latest: Lookup = (name) => {
  const file = join(RESULTS_DIR, `${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
};

async function main(): Promise<void> {
  const summary: string[] = ['# Benchmark results', '', `Measured on this machine (${process.version}); each section names its own run below.`, ''];
  const chosen = BENCHES.filter((bench) => wants(bench.name));
  if (chosen.length > 0) {
    const starting = progress.step('starting DynamoDB Local');
    const engine = await benchEngine();
    starting.done();
    try {
      for (const [index, bench] of chosen.entries()) {
        progress.bench(bench.name, index + 1, chosen.length);
        writeResult(bench.name, await bench.run());
        progress.benchDone();
      }
    } finally {
      await engine.stop();
    }
  }
  for (const bench of BENCHES) {
    const result = latest(bench.name);
    if (!result) continue;
    const [heading, ...rest] = bench.render(result, latest);
    summary.push(heading!, '', `_Measured ${result.measured_at}._`, ...rest);
  }
  summary.push(...renderTargets(latest));
  writeFileSync(join(RESULTS_DIR, 'summary.md'), `${summary.join('\n')}\n`);
  console.log(summary.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
