/**
 * The local server (`npm start -- --memory`, its job timer running) under concurrent load from
 * autocannon, on the two hot reads. The demo merchant's rate limit is raised to the highest custom
 * limit with the ops CLI, and the server's clock moves a minute before each run, so each starts with
 * a fresh rate-limit window: what limits throughput here is the service, not the limiter.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { MAX_CUSTOM_RATE_LIMIT } from '../shared/model/plans.ts';
import { startLocalServer, type RunningServer } from '../test/support/local-server.ts';
import { progress } from './progress.ts';
import { GENERIC_SECRET, genericFailure, genericSignature } from '../test/support/webhooks.ts';

const AUTOCANNON = join(import.meta.dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');

export const THROUGHPUT_ROUTES = ['GET /v1/payments/{id}', 'GET /v1/payments'] as const;

/** autocannon's --json report, the fields read here. */
interface AutocannonReport {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

function autocannon(url: string, key: string, seconds: number, connections: number): Promise<AutocannonReport> {
  return new Promise((resolve, reject) => {
    const args = [AUTOCANNON, '--json', '-c', String(connections), '-d', String(seconds), '-H', `authorization=Bearer ${key}`, url];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout) as AutocannonReport) : reject(new Error(`autocannon exited ${code}: ${stderr}`))));
  });
}

async function request(server: RunningServer, method: string, path: string, init: { key?: string; body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...init.headers },
    body: init.body,
  });
  const body = (await response.json()) as any;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** A connected processor and one failed payment reported through it: the record the reads fetch. */
async function seedPayment(server: RunningServer, adminKey: string): Promise<string> {
  const connected = await request(server, 'PUT', '/v1/processors/acme', { key: adminKey, body: JSON.stringify({ webhook_secret: GENERIC_SECRET }) });
  const body = JSON.stringify(genericFailure({ code: 'expired_card' }));
  const received = await request(server, 'POST', new URL(connected.data.webhook_url).pathname, { body, headers: { 'x-recovery-signature': genericSignature(body) } });
  return received.payment_id as string;
}

export async function benchThroughput(seconds: number, connections: number) {
  const server = await progress.timed('starting the local server', () => startLocalServer({ LOG_LEVEL: 'error' }));
  try {
    const { merchant_id: merchantId, keys } = server.credentials;
    const raised = await server.ops(['merchant', 'update', merchantId, '--rate-limit', String(MAX_CUSTOM_RATE_LIMIT)]);
    if (raised.code !== 0) throw new Error(`ops merchant update failed: ${raised.stderr}`);
    const paymentId = await seedPayment(server, keys.test_admin!);
    const paths: Record<(typeof THROUGHPUT_ROUTES)[number], string> = { 'GET /v1/payments/{id}': `/v1/payments/${paymentId}`, 'GET /v1/payments': '/v1/payments' };
    const routes: Record<string, unknown> = {};
    const step = progress.step(`routes loaded for ${seconds} s each`, THROUGHPUT_ROUTES.length);
    for (const route of THROUGHPUT_ROUTES) {
      await request(server, 'POST', '/__dev/clock', { body: JSON.stringify({ advance_seconds: 61 }) });
      const report = await autocannon(`${server.baseUrl}${paths[route]}`, keys.test_read!, seconds, connections);
      routes[route] = {
        requests_per_second: Math.round(report.requests.average),
        requests: report.requests.total,
        latency_ms: { p50: report.latency.p50, p99: report.latency.p99 },
        non_2xx: report.non2xx,
        errors: report.errors + report.timeouts,
      };
      step.advance();
    }
    step.done();
    return { seconds, connections, rate_limit_per_minute: MAX_CUSTOM_RATE_LIMIT, routes };
  } finally {
    await server.stop();
  }
}
