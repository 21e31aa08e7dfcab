import { afterAll, describe, expect, it } from 'vitest';
import { runtime } from '../../shared/runtime.ts';
import { call, drainEvents, newMerchant } from '../support/api.ts';
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
  const { keys } = await newMerchant();
  const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  // The first webhook reads the connection; later ones verify against this instance's copy.
  expect((await postGeneric(path, genericFailure())).status).toBe(200);
  return { keys, path };
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
