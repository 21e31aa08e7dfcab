/**
 * Ingestion cost and throughput: DynamoDB requests and latency per ingested webhook in process
 * (through the real handler and middleware), and webhook events per second through the local server.
 */
import { createHmac } from 'node:crypto';
import { startLocalServer } from '../test/support/local-server.ts';
import { progress } from './progress.ts';
import { summarize } from './support.ts';

const SECRET = 'bench-generic-secret-0123456789';

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
      step.advance();
    }
    step.done();
    return { dynamodb_requests: summarize(requests), scheduler_calls: summarize(schedulerCalls), latency_ms: summarize(latency) };
  };
  const newCustomers = Array.from({ length: count }, (_, i) => failureEvent(i, `bench_new_${i}`));
  const existingCustomers = Array.from({ length: count }, (_, i) => failureEvent(count + i, `bench_new_${i}`));
  return {
    new_customer_failure: await measure('new customers', newCustomers),
    existing_customer_failure: await measure('existing customers', existingCustomers),
    duplicate_delivery: await measure('duplicate deliveries', newCustomers.slice(0, Math.min(count, 100))),
  };
}

/** Events per second through `npm start`'s HTTP server, with `concurrency` requests in flight. */
export async function benchIngestionThroughput(total: number, concurrency: number) {
  const server = await progress.timed('starting the local server', () => startLocalServer({ LOG_LEVEL: 'warn' }, ['--no-timer']));
  try {
    const connected = await fetch(`${server.baseUrl}/v1/processors/acme`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.credentials.keys.test_admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_secret: SECRET }),
    });
    const path = new URL(((await connected.json()) as any).data.webhook_url).pathname;
    const step = progress.step(`events through the local server (${concurrency} in flight)`, total);
    let next = 0;
    let failed = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < total) {
        const n = next++;
        const body = JSON.stringify(failureEvent(n, `tp_${n % 500}`));
        const response = await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-recovery-signature': signature(body) }, body });
        if (response.status !== 200) failed += 1;
        await response.arrayBuffer();
        step.advance();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    step.done();
    return { events: total, concurrency, failed, seconds: Math.round(seconds * 100) / 100, events_per_second: Math.round(total / seconds) };
  } finally {
    await server.stop();
  }
}
