/**
 * Ingestion cost and throughput: DynamoDB requests and latency per ingested webhook in process
 * (through the real handler and middleware), and webhook events per second through the local server.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_TABLE } from '../bin/local/credentials.ts';
import { endGroup, spawnInGroup } from '../bin/local/process-groups.ts';
import { localEnvironment } from '../bin/local/table.ts';
import { startLocalServer } from '../test/support/local-server.ts';
import { progress } from './progress.ts';
import { summarize } from './support.ts';

const SECRET = 'bench-generic-secret-0123456789';
const WARM_UP_OFFSET = 10_000_000;
const FLOOR_SERVER = join(import.meta.dirname, 'floor', 'ingestion-floor.mjs');

function failureEvent(n: number, customer: string) {
  const now = Math.floor(Date.now() / 1000);
  return {
    id: `evt_bench_${n}`,
    type: 'payment.failed',
    created: now,
    customer: { id: customer, email: `${customer}@example.com`, name: 'Bench Buyer' },
    subscription: { id: `sub_${customer}`, plan: 'pro', amount: 2900, currency: 'usd', status: 'past_due', current_period_end: '2027-01-01T00:00:00Z' },
    payment: { id: `chg_bench_${n}`, amount: 2900, currency: 'usd', decline_code: n % 3 === 0 ? 'expired_card' : 'insufficient_funds' },
    payment_method: { type: 'card', brand: 'visa', last_four: '4242', exp_month: 1, exp_year: 2030 },
  };
}

function signature(body: string): string {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
}

export async function benchIngestionInProcess(count: number) {
  const { dispatch } = await import('../bin/local/dispatch.ts');
  const { runtime } = await import('../shared/runtime.ts');
  const { onboardMerchant } = await import('../shared/domain/access/merchant-onboarding.ts');
  const { requestCounter } = await import('./support.ts');
  const { keys } = await onboardMerchant({ plan: 'enterprise' }, new Date());
  const send = (method: string, path: string, body: string, headers: Record<string, string>) =>
    dispatch({ method, path, query: new URLSearchParams(), headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(body), sourceIp: '127.0.0.1' });
  const connected = await send('PUT', '/v1/processors/acme', JSON.stringify({ webhook_secret: SECRET }), { authorization: `Bearer ${keys.test_admin}` });
  const path = new URL(JSON.parse(connected.body.toString()).data.webhook_url).pathname;
  const counter = requestCounter(runtime.db);
  const measure = async (label: string, events: object[]) => {
    const step = progress.step(`in process, ${label}`, events.length);
    const requests: number[] = [];
    const schedulerCalls: number[] = [];
    const transactItems: number[] = [];
    const latency: number[] = [];
    for (const event of events) {
      const body = JSON.stringify(event);
      counter.reset();
      const started = performance.now();
      const response = await send('POST', path, body, { 'x-recovery-signature': signature(body) });
      latency.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`ingestion failed: ${response.body.toString()}`);
      requests.push(counter.count);
      schedulerCalls.push(counter.schedulerCalls);
      transactItems.push(counter.transactItems);
      step.advance();
    }
    step.done();
    return { dynamodb_requests: summarize(requests), transaction_items: summarize(transactItems), scheduler_calls: summarize(schedulerCalls), latency_ms: summarize(latency) };
  };
  const newCustomers = Array.from({ length: count }, (_, i) => failureEvent(i, `bench_new_${i}`));
  const existingCustomers = Array.from({ length: count }, (_, i) => failureEvent(count + i, `bench_new_${i}`));
  return {
    new_customer_failure: await measure('new customers', newCustomers),
    existing_customer_failure: await measure('existing customers', existingCustomers),
    duplicate_delivery: await measure('duplicate deliveries', newCustomers.slice(0, Math.min(count, 100))),
  };
}

/** CPU seconds a process has used so far (Linux: /proc); 0 where it cannot be read. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Milliseconds of CPU per event each named process used while `work` ran. */
async function cpuPerEvent<T extends { events: number }>(processes: Record<string, number[]>, work: () => Promise<T>) {
  const used = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const before = Object.fromEntries(Object.entries(processes).map(([name, pids]) => [name, used(pids)]));
  const result = await work();
  const cpu = Object.fromEntries(Object.entries(processes).map(([name, pids]) => [name, Math.round(((used(pids) - before[name]!) * 1000 * 10) / result.events) / 10]));
  return { ...result, cpu_ms_per_event: cpu };
}

/** POSTs `bodies` to `url` with `concurrency` in flight; events per second and how many were refused. */
async function load(url: string, bodies: readonly string[], concurrency: number, step: { advance: () => void }) {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-recovery-signature': signature(body) }, body });
      if (response.status !== 200) failed += 1;
      await response.arrayBuffer();
      step.advance();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { events: bodies.length, failed, seconds: Math.round(seconds * 100) / 100, events_per_second: Math.round(bodies.length / seconds) };
}

/** The floor server (bench/floor/ingestion-floor.mjs) on the engine at `endpoint`, once it listens. */
async function startFloor(endpoint: string, tableName: string) {
  const child = spawnInGroup(process.execPath, [FLOOR_SERVER], {
    env: { ...process.env, ...localEnvironment(endpoint, tableName, ''), WEBHOOK_SECRET: SECRET, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ingestion floor exited ${code}`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).listening));
  });
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid!, stop: () => endGroup(child) };
}

/**
 * Events per second through `npm start`'s HTTP server and through the floor, side by side: one
 * DynamoDB Local (the server's), the same document client, the same signed events, `concurrency` in
 * flight, rounds interleaved (server, floor; then floor, server) so drift on the machine falls on both.
 * Both get the very same bodies (the floor writes under a partition of its own): new failures of
 * known and new customers, 500 customers over the run.
 */
export async function benchIngestionThroughput(perRound: number, rounds: number, concurrency: number) {
  const server = await progress.timed('starting the local server', () => startLocalServer({ LOG_LEVEL: 'warn' }, ['--no-timer']));
  const { endpoint } = JSON.parse(readFileSync(join(server.localDir, 'engine.json'), 'utf8')) as { endpoint: string };
  const floor = await progress.timed('starting the floor', () => startFloor(endpoint, LOCAL_TABLE));
  try {
    const connected = await server.api('PUT', '/v1/processors/acme', { webhook_secret: SECRET });
    const serverUrl = `${server.baseUrl}${new URL(connected.body.data.webhook_url).pathname}`;
    const bodies = (offset: number) => Array.from({ length: perRound }, (_, i) => JSON.stringify(failureEvent(offset + i, `tp_${(offset + i) % 500}`)));
    // A short warm-up each (the JIT, the engine's paths, the server's first imports), on events of their own.
    const warmUp = bodies(WARM_UP_OFFSET).slice(0, Math.min(100, perRound));
    await load(serverUrl, warmUp, concurrency, { advance: () => {} });
    await load(floor.url, warmUp, concurrency, { advance: () => {} });
    const step = progress.step(`events through the local server and the floor (${rounds} rounds, ${concurrency} in flight)`, 2 * rounds * perRound);
    type Round = Awaited<ReturnType<typeof load>> & { cpu_ms_per_event: Record<string, number> };
    const results: { server: Round[]; floor: Round[] } = { server: [], floor: [] };
    // Where the time goes: the service's node process and the floor's each against the engine's JVM, which both share.
    const running = server.processes();
    const engine = running.filter((process) => process.command.startsWith('java')).map((process) => process.pid);
    const service = running.filter((process) => !process.command.startsWith('java')).map((process) => process.pid);
    for (let round = 0; round < rounds; round++) {
      const events = bodies(round * perRound);
      const order = round % 2 === 0 ? (['server', 'floor'] as const) : (['floor', 'server'] as const);
      for (const which of order) {
        const own: Record<string, number[]> = which === 'server' ? { service } : { floor: [floor.pid] };
        results[which].push(await cpuPerEvent({ ...own, dynamodb_local: engine }, () => load(which === 'server' ? serverUrl : floor.url, events, concurrency, step)));
      }
    }
    step.done();
    const total = (runs: Round[]) => Math.round(runs.reduce((sum, run) => sum + run.events, 0) / runs.reduce((sum, run) => sum + run.seconds, 0));
    const serverRate = total(results.server);
    const floorRate = total(results.floor);
    return {
      events_per_round: perRound,
      rounds,
      concurrency,
      server: { events_per_second: serverRate, rounds: results.server },
      floor: { events_per_second: floorRate, rounds: results.floor },
      ratio_to_floor: Math.round((serverRate / floorRate) * 100) / 100,
    };
  } finally {
    await floor.stop();
    await server.stop();
  }
}
