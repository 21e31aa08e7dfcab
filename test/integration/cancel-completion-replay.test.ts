/**
 * The dead-letter path (§4.5: "If persistence fails, the session is still consumed and the completion
 * is queued for retry"). The fault is real, not a flag: an item already sits at the key the
 * completion's feedback record must be written to, so the completion transaction fails its
 * condition. The local completion queue and worker are the same port and handler as SQS and the
 * cancel-completions Lambda.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { drainCompletions, MAX_RECEIVES } from '../../bin/local/completion-runner.ts';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { handler as worker } from '../../functions/workers/cancel-completions.ts';
import { tenantKey } from '../../shared/store/keys.ts';
import { drainEvents, newMerchant } from '../support/api.ts';
import { activeFlow, advance, answer, complete, getSession, startSession } from '../support/cancel-flows.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../support/webhooks.ts';
import { localRuntime } from '../../bin/local/local-runtime.ts';

const queue = () => localRuntime().completions;

/** Occupies the feedback key of a session with something that is not its feedback. */
async function blockFeedback(tenant: Tenant, sessionId: string): Promise<() => Promise<void>> {
  const key = tenantKey(tenant, `CANCELFEEDBACK#${sessionId}`);
  await runtime.db.send(new PutCommand({ TableName: runtime.tableName, Item: { ...key, entity: 'foreign', note: 'left by an old import' } }));
  return async () => {
    await runtime.db.send(new DeleteCommand({ TableName: runtime.tableName, Key: key }));
  };
}

async function churningSession() {
  const { merchantId, keys } = await newMerchant();
  const tenant: Tenant = { merchantId, environment: 'test' };
  await activeFlow(keys.test_write);
  const path = await connect(keys.test_admin, 'acme', { webhook_secret: GENERIC_SECRET });
  const failure = genericFailure({ customerId: 'psp_cust_dlq' });
  await postGeneric(path, failure);
  const session = await startSession(merchantId, { customer: 'psp_cust_dlq', subscription: failure.subscription.id });
  await advance(session.token, answer({ reason: 'too_expensive' }, 'survey'));
  return { tenant, ...session };
}

const types = async (tenant: Tenant) => (await tenantItems(tenant, 'EVENT#')).map((event) => event.type as string);

describe('cancel completion dead-letter path', () => {
  beforeEach(() => {
    // Messages of an earlier test must not be delivered in this one.
    queue().receive();
  });

  it('consumes the session, queues the completion, and the worker stores it once the fault is gone', async () => {
    // Prepare
    const { tenant, token, sessionId } = await churningSession();
    const unblock = await blockFeedback(tenant, sessionId);
    // Act
    const response = await complete(token, { outcome: 'churned', reason: 'too_expensive', free_text: 'queued' });
    // Assess: the caller is told it completed, the token is used up, nothing is stored yet.
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ completed: true, outcome: 'churned', session_id: sessionId });
    expect((await getSession(token)).status).toBe(404);
    expect((await advance(token)).status).toBe(400);
    expect((await complete(token, { outcome: 'saved', reason: 'x' })).status).toBe(400);
    expect(queue().pending()).toHaveLength(1);
    expect(await types(tenant)).not.toContain('CancelFlowCompleted');

    // While the fault lasts, the worker reports the message failed and it waits for the next delivery.
    expect(await drainCompletions()).toEqual({ delivered: 0, failed: 1, dead: 0 });
    expect(queue().pending()).toHaveLength(1);

    // Act: the fault is fixed; the next delivery stores it.
    await unblock();
    expect(await drainCompletions()).toEqual({ delivered: 1, failed: 0, dead: 0 });

    // Assess
    const [feedback] = await tenantItems(tenant, 'CANCELFEEDBACK#');
    expect(feedback).toMatchObject({ session_id: sessionId, outcome: 'churned', free_text: 'queued', recorded_via: 'replay', entity: 'cancel_feedback' });
    expect(feedback!.responses).toHaveLength(1);
    const [customer] = await tenantItems(tenant, 'CUSTOMER#');
    expect(customer).toMatchObject({ status: 'churned' });
    expect((await types(tenant)).filter((type) => type === 'CancelFlowCompleted' || type === 'customer.subscription_canceled').sort()).toEqual([
      'CancelFlowCompleted',
      'customer.subscription_canceled',
    ]);
  });

  it('stores a completion once however often it is delivered', async () => {
    // Prepare
    const { tenant, token, sessionId } = await churningSession();
    const unblock = await blockFeedback(tenant, sessionId);
    await complete(token, { outcome: 'churned', reason: 'too_expensive' });
    const [message] = queue().pending();
    await unblock();
    // Act: SQS delivers at least once; three copies of the same completion arrive.
    await queue().enqueue(JSON.parse(message!.body));
    await queue().enqueue(JSON.parse(message!.body));
    const run = await drainCompletions();
    await drainCompletions();
    // Assess
    expect(run).toEqual({ delivered: 3, failed: 0, dead: 0 });
    expect(await tenantItems(tenant, 'CANCELFEEDBACK#')).toHaveLength(1);
    expect((await types(tenant)).filter((type) => type === 'CancelFlowCompleted')).toHaveLength(1);
    expect((await types(tenant)).filter((type) => type === 'customer.subscription_canceled')).toHaveLength(1);
  });

  it('sets a completion that keeps failing aside in the dead letters after the redrive count', async () => {
    const { tenant, token, sessionId } = await churningSession();
    await blockFeedback(tenant, sessionId);
    await complete(token, { outcome: 'churned', reason: 'too_expensive' });
    const runs = [];
    for (let i = 0; i < MAX_RECEIVES; i++) runs.push(await drainCompletions());
    expect(runs.at(-1)).toEqual({ delivered: 0, failed: 1, dead: 1 });
    expect(queue().pending()).toHaveLength(0);
    expect(queue().deadLetters().map((message) => JSON.parse(message.body).session.session_id)).toContain(sessionId);
  });

  it('applies a replayed save\'s accepted offer like a direct one', async () => {
    // Prepare
    const { tenant, token, sessionId } = await churningSession();
    await advance(token, answer({ accepted_offer: { offer_type: 'discount' } }, 'offer'));
    const unblock = await blockFeedback(tenant, sessionId);
    await complete(token, { outcome: 'saved', reason: 'too_expensive' });
    await unblock();
    // Act
    await drainCompletions();
    await drainEvents();
    // Assess
    const [feedback] = await tenantItems(tenant, 'CANCELFEEDBACK#');
    expect(feedback!.offer_application).toMatchObject({ status: 'applied' });
    expect(localRuntime().outbox.entries().filter((entry) => entry.content.idempotency_key === `cancel-offer-${sessionId}`)).toHaveLength(1);
  });

  it('reports only the failed records of a batch (ReportBatchItemFailures)', async () => {
    // Prepare
    const { tenant, token, sessionId } = await churningSession();
    const unblock = await blockFeedback(tenant, sessionId);
    await complete(token, { outcome: 'churned', reason: 'too_expensive' });
    const [message] = queue().receive();
    await unblock();
    const record = (messageId: string, body: string) => ({
      messageId,
      receiptHandle: messageId,
      body,
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:cancel-completions',
      awsRegion: 'us-east-1',
    });
    // Act
    const result = await worker({ Records: [record('poison', '{"kind":"something-else"}'), record('good', message!.body), record('truncated', '{"kind":')] });
    // Assess
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'poison' }, { itemIdentifier: 'truncated' }] });
    expect(await tenantItems(tenant, 'CANCELFEEDBACK#')).toHaveLength(1);
  });
});
