/**
 * `npm run bench`: measures and writes bench/results/*.json plus bench/results/summary.md.
 * Optional argument: which benches to run (default all), e.g. `npm run bench -- ingestion`.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchEngine, RESULTS_DIR, writeResult } from './support.ts';

const selected = new Set(process.argv.slice(2));
const wants = (name: string) => selected.size === 0 || selected.has(name);

async function main(): Promise<void> {
  const engine = await benchEngine();
  const summary: string[] = ['# Benchmark results', '', `Measured ${new Date().toISOString()} on this machine (${process.version}).`, ''];
  try {
    if (wants('ingestion')) {
      const { benchIngestionInProcess, benchIngestionThroughput } = await import('./ingestion.ts');
      const inProcess = await benchIngestionInProcess(200);
      const throughput = await benchIngestionThroughput(2000, 16);
      writeResult('ingestion', { in_process: inProcess, local_server: throughput });
      summary.push(
        '## Webhook ingestion',
        '',
        '| Case | DynamoDB requests (median / max) | Scheduler calls | Latency ms (median / p99) |',
        '|---|---|---|---|',
        ...Object.entries(inProcess).map(
          ([name, r]) =>
            `| ${name.replaceAll('_', ' ')} | ${r.dynamodb_requests.median} / ${r.dynamodb_requests.max} | ${r.scheduler_calls.median} | ${r.latency_ms.median} / ${r.latency_ms.p99} |`,
        ),
        '',
        `Through the local server: **${throughput.events_per_second} events/s** (${throughput.events} signed generic events, ${throughput.concurrency} in flight, ${throughput.failed} failed).`,
        '',
      );
    }
  } finally {
    await engine.stop();
  }
  writeFileSync(join(RESULTS_DIR, 'summary.md'), `${summary.join('\n')}\n`);
  console.log(summary.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
