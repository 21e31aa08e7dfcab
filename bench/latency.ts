/**
 * Handler latency of the hot routes in process (real handlers and middleware through the local
 * dispatch, DynamoDB Local), with the DynamoDB requests each call sends. Webhook ingestion, the
 * hottest, is the ingestion bench's: the summary shows its figures here rather than measuring twice.
 * Every call acts on its own record (a payment to retry, a session to advance), after a few
 * warm-up calls have loaded the modules and filled the key cache as a warm Lambda would have.
 */
import { runtime } from '../shared/runtime.ts';
import { MAX_CUSTOM_RATE_LIMIT } from '../shared/model/plans.ts';
import { call, newMerchant, type ApiResponse } from '../test/support/api.ts';
import { activeFlow, advance, answer, startSession } from '../test/support/cancel-flows.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../test/support/webhooks.ts';
import { progress } from './progress.ts';
import { requestCounter, summarize } from './support.ts';

const WARM_UP = 3;

/** The routes measured here, in the order the summary lists them. */
export const LATENCY_ROUTES = ['GET /v1/payments', 'GET /v1/payments/{id}', 'POST /v1/payments/{id}/retry', 'POST /api/cancel-session/{token}/advance'] as const;

async function seed(count: number) {
  const step = progress.step('seeding payments and cancel sessions', 2 * count);
  const { merchantId, keys } = await newMerchant({ rateLimitOverride: MAX_CUSTOM_RATE_LIMIT });
  const webhookPath = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const payments: string[] = [];
  for (let i = 0; i < count; i++) {
    // A hard decline waits in communication_pending, where a manual retry is allowed.
    const response = await postGeneric(webhookPath, genericFailure({ code: 'expired_card' }));
    if (response.status !== 200) throw new Error(`seeding a payment answered ${response.status}: ${JSON.stringify(response.body)}`);
    payments.push(response.body.payment_id);
    step.advance();
  }
  await activeFlow(keys.test_write);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    tokens.push((await startSession(merchantId, { customer: `bench_${i}`, subscription: `bench_sub_${i}` })).token);
    step.advance();
  }
  step.done();
  return { keys, payments, tokens };
}

export async function benchLatency(samples: number) {
  const { keys, payments, tokens } = await seed(samples + WARM_UP);
  const counter = requestCounter(runtime.db);
  const measure = async (route: (typeof LATENCY_ROUTES)[number], expected: number, request: (i: number) => Promise<ApiResponse>) => {
    const step = progress.step(`calls to ${route}`, samples + WARM_UP);
    const latency: number[] = [];
    const requests: number[] = [];
    const schedulerCalls: number[] = [];
    for (let i = 0; i < samples + WARM_UP; i++) {
      counter.reset();
      const started = performance.now();
      const response = await request(i);
      const elapsed = performance.now() - started;
      if (response.status !== expected) throw new Error(`call ${i} answered ${response.status}: ${JSON.stringify(response.body)}`);
      step.advance();
      if (i < WARM_UP) continue;
      latency.push(elapsed);
      requests.push(counter.count);
      schedulerCalls.push(counter.schedulerCalls);
    }
    step.done();
    return { latency_ms: summarize(latency), dynamodb_requests: summarize(requests), scheduler_calls: summarize(schedulerCalls) };
  };
  try {
    const calls: Record<(typeof LATENCY_ROUTES)[number], (i: number) => Promise<ApiResponse>> = {
      'GET /v1/payments': () => call('GET', '/v1/payments', { key: keys.test_read }),
      'GET /v1/payments/{id}': (i) => call('GET', `/v1/payments/${payments[i]}`, { key: keys.test_read }),
      'POST /v1/payments/{id}/retry': (i) => call('POST', `/v1/payments/${payments[i]}/retry`, { key: keys.test_write }),
      'POST /api/cancel-session/{token}/advance': (i) => advance(tokens[i]!, answer({ reason: 'too_expensive' }, 'survey')),
    };
    const routes: Record<string, unknown> = {};
    for (const route of LATENCY_ROUTES) routes[route] = await measure(route, 200, calls[route]);
    return { samples, payments: payments.length, routes };
  } finally {
    counter.stop();
  }
}
