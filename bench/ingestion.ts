/**
 * Ingestion cost and throughput: DynamoDB requests and latency per ingested webhook in process
 * (through the real handler and middleware), and webhook events per second through the local server.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_TABLE } from '../bin/local/credentials.ts';
import { endGroup, spawnInGroup } from '../bin/local/process-groups.ts';
import { localEnvironment } from '../bin/local/table.ts';
import { startLocalServer } from '../test/support/local-server.ts';
import { eventFigures, recordServiceRequests } from './ingestion-recording.ts';
import { progress } from './progress.ts';
import { summarize } from './support.ts';

const SECRET = 'bench-generic-secret-0123456789';
const WARM_UP_OFFSET = 10_000_000;
const FLOOR_SERVER = join(import.meta.dirname, 'floor', 'ingestion-floor.mjs');
/** The same-requests floor's table, on the server's engine (the three-item floor writes a partition of the server's). */
const SAME_REQUESTS_TABLE = 'ingestion-floor';

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

/** One signed delivery of `body` to `url`, as a processor sends it. */
const deliver = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-recovery-signature': signature(body), ...headers }, body });

/** POSTs `bodies` to `url` with `concurrency` in flight; events per second and how many were refused. */
async function load(url: string, bodies: readonly string[], concurrency: number, step: { advance: () => void }) {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const response = await deliver(url, bodies[next++]!);
      if (response.status !== 200) failed += 1;
      await response.arrayBuffer();
      step.advance();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { events: bodies.length, failed, seconds: Math.round(seconds * 100) / 100, events_per_second: Math.round(bodies.length / seconds) };
}

/** What a floor sent since it was last asked (bench/floor/ingestion-floor.mjs, GET /tally). */
interface Tally {
  events: number;
  requests: number;
  items: number;
  tries: number;
  refused: Record<string, number>;
}

/**
 * A floor server (bench/floor/ingestion-floor.mjs) on `tableName` of the engine at `endpoint`, once it
 * listens: the three-item floor, or with `recordedCalls` (a JSON file) the same-requests floor.
 */
async function startFloor(endpoint: string, tableName: string, recordedCalls?: string) {
  const child = spawnInGroup(process.execPath, [FLOOR_SERVER], {
    env: { ...process.env, ...localEnvironment(endpoint, tableName, ''), WEBHOOK_SECRET: SECRET, PORT: '0', ...(recordedCalls ? { RECORDED_CALLS: recordedCalls } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ingestion floor exited ${code}`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).listening));
  });
  const url = `http://127.0.0.1:${port}/`;
  return { url, pid: child.pid!, tally: async () => (await (await fetch(`${url}tally`)).json()) as Tally, stop: () => endGroup(child) };
}

const perEvent = (total: number, events: number) => Math.round((total / events) * 100) / 100;

/**
 * Events per second through `npm start`'s HTTP server and through two floors, side by side: one
 * DynamoDB Local (the server's), the same document client, the same signed events, `concurrency` in
 * flight, rounds interleaved (server, same-requests floor, three-item floor; then the other way round)
 * so drift on the machine falls on all three. The same-requests floor makes, for each event, the
 * requests the service made for it (bench/ingestion-recording.ts); the three-item floor is the issue's
 * first. All get the very same bodies (each floor writes where the server does not): new failures of
 * known and new customers, 500 customers over the run.
 */
export async function benchIngestionThroughput(perRound: number, rounds: number, concurrency: number) {
  const server = await progress.timed('starting the local server', () => startLocalServer({ LOG_LEVEL: 'warn' }, ['--no-timer']));
  const { endpoint } = JSON.parse(readFileSync(join(server.localDir, 'engine.json'), 'utf8')) as { endpoint: string };
  const scratch = mkdtempSync(join(tmpdir(), 'ingestion-floor-'));
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const connected = await server.api('PUT', '/v1/processors/acme', { webhook_secret: SECRET });
    const serverUrl = `${server.baseUrl}${new URL(connected.body.data.webhook_url).pathname}`;
    const bodies = (offset: number, count: number) => Array.from({ length: count }, (_, i) => JSON.stringify(failureEvent(offset + i, `tp_${(offset + i) % 500}`)));
    // A short warm-up each (the JIT, the engine's paths, the server's first imports), on events of their own.
    const warmUp = bodies(WARM_UP_OFFSET, Math.min(100, perRound));
    const roundBodies = Array.from({ length: rounds }, (_, round) => bodies(round * perRound, perRound));
    const recording = await recordServiceRequests(endpoint, SAME_REQUESTS_TABLE, [...warmUp, ...roundBodies.flat()], { secret: SECRET, concurrency }, deliver);
    const recordedCalls = join(scratch, 'recorded-calls.json');
    writeFileSync(recordedCalls, JSON.stringify(recording.calls));
    const sameRequests = await progress.timed('starting the same-requests floor', () => startFloor(endpoint, SAME_REQUESTS_TABLE, recordedCalls));
    stops.push(sameRequests.stop);
    const floor = await progress.timed('starting the three-item floor', () => startFloor(endpoint, LOCAL_TABLE));
    stops.push(floor.stop);
    const contenders = { server: { url: serverUrl }, same_requests_floor: sameRequests, floor } as const;
    type Contender = keyof typeof contenders;
    const names = Object.keys(contenders) as Contender[];
    for (const name of names) await load(contenders[name].url, warmUp, concurrency, { advance: () => {} });
    await Promise.all([sameRequests.tally(), floor.tally()]);
    const step = progress.step(`events through the local server and its two floors (${rounds} rounds, ${concurrency} in flight)`, names.length * rounds * perRound);
    type Round = Awaited<ReturnType<typeof load>> & { cpu_ms_per_event: Record<string, number>; requests_per_event: number; items_per_event: number; tries_per_event?: number; refused?: Record<string, number> };
    const results: Record<Contender, Round[]> = { server: [], same_requests_floor: [], floor: [] };
    // Where the time goes: each contender's own node process against the engine's JVM, which all share.
    const running = server.processes();
    const engine = running.filter((process) => process.command.startsWith('java')).map((process) => process.pid);
    const own: Record<Contender, Record<string, number[]>> = {
      server: { service: running.filter((process) => !process.command.startsWith('java')).map((process) => process.pid) },
      same_requests_floor: { floor: [sameRequests.pid] },
      floor: { floor: [floor.pid] },
    };
    for (const [round, events] of roundBodies.entries()) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const run = await cpuPerEvent({ ...own[name], dynamodb_local: engine }, () => load(contenders[name].url, events, concurrency, step));
        if (name === 'server') {
          // The service's own requests for these events, as recorded.
          const figures = events.map((body) => eventFigures(recording.calls[JSON.parse(body).id]!));
          results.server.push({ ...run, requests_per_event: perEvent(figures.reduce((sum, one) => sum + one.requests, 0), events.length), items_per_event: perEvent(figures.reduce((sum, one) => sum + one.items, 0), events.length) });
        } else {
          const sent = await contenders[name].tally();
          results[name].push({ ...run, requests_per_event: perEvent(sent.requests, sent.events), items_per_event: perEvent(sent.items, sent.events), tries_per_event: perEvent(sent.tries, sent.events), refused: sent.refused });
        }
      }
    }
    step.done();
    const total = (runs: Round[]) => Math.round(runs.reduce((sum, run) => sum + run.events, 0) / runs.reduce((sum, run) => sum + run.seconds, 0));
    const rate = (name: Contender) => total(results[name]);
    const ratio = (name: Contender) => Math.round((rate('server') / rate(name)) * 100) / 100;
    return {
      events_per_round: perRound,
      rounds,
      concurrency,
      recording: { events: Object.keys(recording.calls).length, floor_table_seeded_items: recording.seeded_items, redelivered: recording.redelivered },
      server: { events_per_second: rate('server'), rounds: results.server },
      same_requests_floor: { events_per_second: rate('same_requests_floor'), rounds: results.same_requests_floor },
      floor: { events_per_second: rate('floor'), rounds: results.floor },
      ratio_to_same_requests_floor: ratio('same_requests_floor'),
      ratio_to_floor: ratio('floor'),
    };
  } finally {
    for (const stop of stops) await stop();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
