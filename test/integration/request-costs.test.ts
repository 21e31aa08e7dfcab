import { afterAll, describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { requestCounter } from '../support/dynamodb-requests.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';

/** Issue #9's budgets: DynamoDB requests per call on a warm instance (the scheduler's calls are not DynamoDB in AWS). */
const INGESTION_BUDGET = 3;
/**
 * A new customer's failure: the batch read of references and tombstones, and one transaction. Its
 * search index follows in the stream (docs/decisions.md, "The search index follows the stream").
 */
const NEW_CUSTOMER_REQUESTS = 2;
const AUTHENTICATED_READ_BUDGET = 3;
/**
 * What the stream asks of DynamoDB for a new customer's failure (three events) with one campaign and
 * one endpoint: the batch's two configuration reads and each record's own work (10 when the
 * endpoints were read once per record), of which the search index's: the customer and its search
 * record read, one transaction.
 */
const STREAM_REQUESTS = 11;

const counter = requestCounter(runtime.db);
afterAll(() => counter.stop());

async function measured<T>(work: () => Promise<T>): Promise<{ result: T; requests: number }> {
  counter.reset();
  const result = await work();
  return { result, requests: counter.count };
}

async function warmWebhook() {
  const { keys, merchantId } = await newMerchant();
  const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  // The first webhook reads the connection; later ones verify against this instance's copy.
  expect((await postGeneric(path, genericFailure())).status).toBe(200);
  return { keys, path, merchantId };
}

describe('DynamoDB requests per call on a warm instance', () => {
  it(`ingests a new customer's failure in ${NEW_CUSTOMER_REQUESTS} requests and a known customer's in at most ${INGESTION_BUDGET}`, async () => {
    // Prepare
    const { path } = await warmWebhook();
    const first = genericFailure();
    // Act
    const newCustomer = await measured(() => postGeneric(path, first));
    const again = genericFailure({ customerId: first.customer.id, email: first.customer.email });
    again.customer.name = first.customer.name;
    const knownCustomer = await measured(() => postGeneric(path, again));
    // Assess
    expect(newCustomer.result.body.outcome).toBe('created');
    expect(knownCustomer.result.body).toMatchObject({ outcome: 'created', customer_id: newCustomer.result.body.customer_id });
    expect(newCustomer.requests).toBe(NEW_CUSTOMER_REQUESTS);
    expect(knownCustomer.requests).toBeLessThanOrEqual(INGESTION_BUDGET);
  });

  it(`ingests a failure that renames a known customer in at most ${INGESTION_BUDGET} requests, its search index left to the stream`, async () => {
    // Prepare
    const { path } = await warmWebhook();
    const first = genericFailure();
    await postGeneric(path, first);
    // Act: the generic fixture gives every event a new name and email
    const renamed = await measured(() => postGeneric(path, genericFailure({ customerId: first.customer.id })));
    // Assess
    expect(renamed.result.body.outcome).toBe('created');
    expect(renamed.requests).toBeLessThanOrEqual(INGESTION_BUDGET);
  });

  it(`answers a replayed delivery in at most ${INGESTION_BUDGET} requests, recording nothing twice`, async () => {
    // Prepare
    const { path } = await warmWebhook();
    const event = genericFailure();
    const recorded = await postGeneric(path, event);
    // Act
    const replay = await measured(() => postGeneric(path, event));
    // Assess
    expect(replay.result.body).toMatchObject({ outcome: 'duplicate', payment_id: recorded.body.payment_id });
    expect(replay.requests).toBeLessThanOrEqual(INGESTION_BUDGET);
  });

  it(`answers a warm authenticated GET /v1/payments/{id} in at most ${AUTHENTICATED_READ_BUDGET} requests: rate limit and data`, async () => {
    // Prepare
    const { keys, path } = await warmWebhook();
    const failure = await postGeneric(path, genericFailure());
    // The first authenticated request reads the key; later ones within the key cache's lifetime do not.
    expect((await call('GET', '/v1/auth/me', { key: keys.test_read })).status).toBe(200);
    // Act
    const read = await measured(() => call('GET', `/v1/payments/${failure.body.payment_id}`, { key: keys.test_read }));
    // Assess
    expect(read.result.status).toBe(200);
    expect(read.result.body.data.customer.id).toBe(failure.body.customer_id);
    expect(read.requests).toBeLessThanOrEqual(AUTHENTICATED_READ_BUDGET);
  });

  it("reads a tenant's campaigns and webhook endpoints once per stream batch, not once per record and consumer", async () => {
    // Prepare: an active campaign and an endpoint for every event; a new customer's soft decline
    // writes three events (customer.created, payment.failed, payment.retry_scheduled).
    const { keys, path } = await warmWebhook();
    const campaign = await call('POST', '/v1/campaigns', {
      key: keys.test_write,
      body: { name: 'Card problems', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_payment_failed', subject: 'Action needed', delay_hours: 1 }] },
    });
    expect((await call('POST', `/v1/campaigns/${campaign.body.data.id}/activate`, { key: keys.test_write })).status).toBe(200);
    expect((await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://hooks.example.com/recovery', events: ['*'] } })).status).toBe(201);
    await drainEvents();
    expect((await postGeneric(path, genericFailure())).status).toBe(200);
    const configurationReads = new Map<string, number>();
    runtime.db.middlewareStack.add(
      (next: (args: any) => Promise<any>) => async (args: any) => {
        const prefix = args.input?.ExpressionAttributeValues?.[':prefix'];
        if (prefix === 'CAMPAIGN#' || prefix === 'WEBHOOK#') configurationReads.set(prefix, (configurationReads.get(prefix) ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'configurationReads' },
    );
    // Act
    const delivered = await measured(drainEvents).finally(() => runtime.db.middlewareStack.remove('configurationReads'));
    // Assess
    expect(delivered.result).toEqual({ events: 3, failed: 0 });
    expect(Object.fromEntries(configurationReads)).toEqual({ 'CAMPAIGN#': 1, 'WEBHOOK#': 1 });
    expect(delivered.requests).toBe(STREAM_REQUESTS);
  });
});

describe("a retried failure's requests", () => {
  it('reads the payment once per scheduled attempt, and writes its "retried" analytics fact once however many retries fail', async () => {
    // Prepare: a soft decline on a card that keeps declining (sandbox 9995): retried until the retries run out.
    const { merchantId, path } = await warmWebhook();
    const tenant: Tenant = { merchantId, environment: 'test' };
    const failure = genericFailure({ code: 'insufficient_funds', lastFour: '9995' });
    const ingested = await postGeneric(path, failure);
    expect(ingested.status).toBe(200);
    const paymentId = ingested.body.payment_id as string;
    await drainEvents();
    const requests: { job?: string; command: string; sk: string }[] = [];
    let job: string | undefined;
    runtime.db.middlewareStack.add(
      (next: (args: any) => Promise<any>, context: any) => async (args: any) => {
        const items = args.input?.TransactItems?.map((item: any) => Object.values(item as Record<string, any>)[0]) ?? [args.input];
        for (const item of items) {
          const key = item?.Item ?? item?.Key;
          if (String(key?.pk).includes(merchantId)) requests.push({ job, command: context.commandName, sk: String(key.sk) });
        }
        return next(args);
      },
      { step: 'initialize', name: 'retryRequests' },
    );

    // Act: every retry of the payment as it comes due, with the events each one writes.
    let attempts = 0;
    try {
      for (let round = 0; round < 12; round++) {
        const due = await localRuntime().scheduler.due(new Date(runtime.clock.now().getTime() + 30 * 86_400_000));
        const next = due.filter((scheduled) => scheduled.kind === 'payment-retry' && scheduled.jobId.includes(paymentId)).sort((a, b) => Date.parse(a.runAt) - Date.parse(b.runAt))[0];
        if (!next) break;
        advanceClock(Math.max(0, Math.ceil((Date.parse(next.runAt) - runtime.clock.now().getTime()) / 1000)) + 1);
        job = 'retry';
        attempts += (await runDueJobs()).filter((run) => run.job_id === next.jobId).length;
        job = 'stream';
        await drainEvents();
      }
    } finally {
      runtime.db.middlewareStack.remove('retryRequests');
    }

    // Assess: four attempts, each reading its payment once; one "retried" fact written, counted once.
    expect(attempts).toBe(4);
    const paymentReads = requests.filter((request) => request.job === 'retry' && request.command === 'GetItemCommand' && request.sk === `PAYMENT#${paymentId}`);
    expect(paymentReads).toHaveLength(attempts);
    const retriedFacts = requests.filter((request) => request.command === 'TransactWriteItemsCommand' && request.sk === `ANALYTICS_APPLIED#RECOVERY#retried#${paymentId}`);
    expect(retriedFacts).toHaveLength(1);
    // Counted once per payment retried (the warm-up's failure may have had its own retry run meanwhile).
    const aggregates = await tenantItems(tenant, 'ANALYTICS#RECOVERY#');
    const retriedPayments = await tenantItems(tenant, 'ANALYTICS_APPLIED#RECOVERY#retried#');
    expect(retriedPayments.map((marker) => marker.sk)).toContain(`ANALYTICS_APPLIED#RECOVERY#retried#${paymentId}`);
    expect(aggregates.reduce((total, item) => total + Number(item.retried_count ?? 0), 0)).toBe(retriedPayments.length);
  });
});
