/**
 * The Braintree gateway client against the local fake of the Braintree API: it sends what the
 * `braintree` package sends for the same calls (both are sent here and compared), reads answers as
 * the package reads them, and turns HTTP statuses into the package's error kinds.
 */
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import braintree from 'braintree';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BraintreeGatewayError, createBraintreeGateway, type BraintreeGateway } from '../../shared/adapters/aws/braintree-gateway.ts';
import { apiErrorXml, startFakeBraintree, subscriptionXml, transactionXml, type FakeBraintree, type RecordedBraintreeRequest } from '../support/fake-braintree.ts';

const KEYS = { merchantId: 'bt_merchant_client', publicKey: 'bt_public_client', privateKey: 'bt_private_client' };
const subscriptionPath = `/merchants/${KEYS.merchantId}/subscriptions/bt_sub_1`;
const transactionsPath = `/merchants/${KEYS.merchantId}/transactions`;

let fake: FakeBraintree;
let gateway: BraintreeGateway;
let sdk: braintree.BraintreeGateway;

beforeAll(async () => {
  fake = await startFakeBraintree();
  gateway = createBraintreeGateway(fake.environment, KEYS, 2_000);
  const { server, port } = fake.environment;
  sdk = new braintree.BraintreeGateway({
    environment: new braintree.Environment(server, String(port), `http://${server}:${port}`, false, server, String(port)),
    ...KEYS,
  });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const sent = (request: RecordedBraintreeRequest) => ({
  method: request.method,
  path: request.path,
  json: request.json,
  authorization: request.headers.authorization,
  apiVersion: request.headers['x-apiversion'],
  accept: request.headers.accept,
  contentType: request.headers['content-type'],
  acceptEncoding: request.headers['accept-encoding'],
});

async function failure(act: () => Promise<unknown>): Promise<BraintreeGatewayError> {
  try {
    await act();
  } catch (error) {
    if (error instanceof BraintreeGatewayError) return error;
    throw error;
  }
  throw new Error('expected a BraintreeGatewayError');
}

describe('Braintree gateway requests', () => {
  it('reads a subscription with the request the braintree package sends', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: subscriptionXml({ id: 'bt_sub_1', status: 'Past Due' }) });
    // Act
    await sdk.subscription.find('bt_sub_1');
    const subscription = await gateway.findSubscription('bt_sub_1');
    // Assess
    const [theirs, ours] = fake.requests.map(sent);
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({ apiVersion: '6', accept: 'application/xml', acceptEncoding: 'gzip' });
    expect(subscription).toMatchObject({ id: 'bt_sub_1', status: 'Past Due', transactions: [] });
  });

  it('retries a subscription charge with the sale the braintree package sends', async () => {
    // Prepare
    fake.on('POST', transactionsPath, { status: 201, xml: transactionXml({ id: 'txn_1', status: 'submitted_for_settlement' }) });
    // Act
    await sdk.subscription.retryCharge('bt_sub_1', '19.99', true);
    const result = await gateway.retryCharge('bt_sub_1', '19.99');
    // Assess
    const [theirs, ours] = fake.requests.map(sent);
    expect(ours).toEqual(theirs);
    expect(result).toMatchObject({ success: true, transaction: { id: 'txn_1', status: 'submitted_for_settlement' } });
  });
});

describe('Braintree gateway answers', () => {
  it('reads a refused sale as the braintree package does: message, declined transaction, every nested validation error', async () => {
    // Prepare
    const refusal = apiErrorXml('Declined and invalid', {
      errors: [
        { code: '91531', attribute: 'base', message: 'Subscription status must be Past Due in order to retry.' },
        { code: '81503', attribute: 'amount', message: 'Amount is an invalid format.' },
      ],
      transaction: { id: 'txn_2', status: 'processor_declined', processorResponseCode: '2001', processorResponseText: 'Insufficient Funds' },
    });
    fake.on('POST', transactionsPath, { status: 422, xml: refusal });
    // Act
    const theirs = await sdk.subscription.retryCharge('bt_sub_1', '19.99', true);
    const ours = await gateway.retryCharge('bt_sub_1', '19.99');
    // Assess
    if (ours.success || theirs.success) throw new Error('expected a refusal');
    expect(ours.message).toBe(theirs.message);
    expect(ours.errors).toEqual(theirs.errors.deepErrors().map(({ code, message }) => ({ code, message })));
    expect(ours.transaction).toMatchObject({
      id: theirs.transaction.id,
      status: theirs.transaction.status,
      processorResponseCode: theirs.transaction.processorResponseCode,
      processorResponseText: theirs.transaction.processorResponseText,
    });
  });

  it.each([
    [401, 'authenticationError', false],
    [403, 'authorizationError', false],
    [404, 'notFoundError', false],
    [426, 'upgradeRequired', false],
    [408, 'requestTimeoutError', true],
    [429, 'tooManyRequestsError', true],
    [500, 'serverError', true],
    [502, 'unexpectedError', true],
    [503, 'serviceUnavailableError', true],
    [504, 'gatewayTimeoutError', true],
  ] as const)('turns HTTP %i into %s (retryable: %s), as the package names it', async (status, kind, retryable) => {
    // Prepare
    fake.on('GET', subscriptionPath, { status });
    // Act
    const theirs = await sdk.subscription.find('bt_sub_1').then(
      () => null,
      (error: Error) => error,
    );
    const ours = await failure(() => gateway.findSubscription('bt_sub_1'));
    // Assess
    expect(ours).toMatchObject({ kind, retryable });
    expect(theirs?.name).toBe(kind);
  });

  it('refuses an id that cannot name a subscription without asking, as the package does', async () => {
    expect(await failure(() => gateway.findSubscription('../transactions'))).toMatchObject({ kind: 'notFoundError', retryable: false });
    expect(fake.requests).toEqual([]);
  });

  it('reads a gzipped answer', async () => {
    // Prepare: the fake does not compress, so a server of its own
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n${subscriptionXml({ id: 'bt_sub_1', status: 'Active' })}`;
    const server = createServer((_req, res) => {
      const body = gzipSync(xml);
      res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip', 'content-length': body.length });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const zipped = createBraintreeGateway({ server: '127.0.0.1', port: (server.address() as AddressInfo).port, ssl: false }, KEYS, 2_000);
      // Act
      const subscription = await zipped.findSubscription('bt_sub_1');
      // Assess
      expect(subscription).toMatchObject({ id: 'bt_sub_1', status: 'Active' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('turns an unreadable or unexpected answer into a retryable unexpectedError', async () => {
    // Prepare
    fake.on('GET', subscriptionPath, { status: 200, xml: '<subscription><id>bt_sub_1</id>' }, { status: 200, xml: '<subscription><id>bt_sub_1</id></subscription>' });
    // Act
    const unreadable = await failure(() => gateway.findSubscription('bt_sub_1'));
    const unexpected = await failure(() => gateway.findSubscription('bt_sub_1'));
    // Assess
    expect(unreadable).toMatchObject({ kind: 'unexpectedError', retryable: true, message: expect.stringMatching(/^Unreadable answer: unclosed element <subscription>/) });
    expect(unexpected).toMatchObject({ kind: 'unexpectedError', retryable: true, message: expect.stringMatching(/^Unexpected answer: subscription\.status/) });
  });

  it('gives up on a request at its timeout, as a retryable unexpectedError', async () => {
    // Prepare
    const impatient = createBraintreeGateway(fake.environment, KEYS, 200);
    fake.on('GET', subscriptionPath, { hang: true });
    // Act
    const timedOut = await failure(() => impatient.findSubscription('bt_sub_1'));
    // Assess
    expect(timedOut).toMatchObject({ kind: 'unexpectedError', retryable: true, message: 'Request timed out' });
  });
});
