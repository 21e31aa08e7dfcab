/**
 * The data the cold-start bench sends its one request per function against, seeded through the API
 * in process (local mode, the bench's table): an enterprise merchant at the highest rate limit with a
 * connected generic processor, failed payments, an active campaign and cancel flow, a webhook
 * endpoint with a delivery, a cancel session, the jobs all that scheduled, an event item as the
 * table's stream delivers it and a queued cancel completion. Routes that delete or revoke get spare
 * records, so they do not take the others' data away between runs.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { toRecord as toQueueRecord } from '../bin/local/completion-runner.ts';
import { drainEvents, toRecord as toStreamRecord } from '../bin/local/event-runner.ts';
import { runtime } from '../shared/runtime.ts';
import { calendarScanJobId, type CalendarScanJob } from '../shared/domain/dunning/calendar-scan.ts';
import { campaignSweepJobId, type CampaignSweepJob } from '../shared/domain/campaigns/campaign-sweeps.ts';
import { readSession, tokenHash } from '../shared/domain/cancel-flows/cancel-session-lifecycle.ts';
import { completionOf } from '../shared/domain/cancel-flows/cancel-sessions.ts';
import { MAX_CUSTOM_RATE_LIMIT } from '../shared/model/plans.ts';
import type { Tenant } from '../shared/model/tenant.ts';
import { newId } from '../shared/ids.ts';
import type { JobEvent, JobKind } from '../shared/ports/scheduler.ts';
import { call, newMerchant } from '../test/support/api.ts';
import { activeFlow, startSession } from '../test/support/cancel-flows.ts';
import { connect, GENERIC_SECRET, genericFailure, postGeneric } from '../test/support/webhooks.ts';
import { FLOOR_PARTITION } from './floor/handler.ts';
import { localRuntime } from '../bin/local/local-runtime.ts';
import { updatePage } from '../shared/composition/update-page.ts';
import { issueUpdateLink } from '../shared/domain/card-updates/update-links.ts';

export interface BenchFixture {
  tenant: Tenant;
  adminKey: string;
  /**
   * Path parameter values by the literal segment before the parameter and its name
   * ('payments:id', 'deliveries:delivery_id'); 'spare:…' ones for the routes that delete or revoke.
   */
  pathValues: Record<string, string>;
  jobs: Partial<Record<JobKind, JobEvent>>;
  streamRecord: DynamoDBRecord;
  queueRecord: SQSRecord;
  /** The payment id the floor handler reads (its item is at FLOOR_PARTITION). */
  floorId: string;
}

/** Creates through the API and returns the new resource's id; anything but 201 stops the bench. */
async function created(path: string, key: string, body: unknown): Promise<string> {
  const response = await call('POST', path, { key, body });
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data.id as string;
}

async function failure(webhookPath: string, code: string) {
  const event = genericFailure({ code });
  const response = await postGeneric(webhookPath, event);
  if (response.status !== 200) throw new Error(`ingestion answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { paymentId: response.body.payment_id as string, customerId: response.body.customer_id as string, event };
}

/**
 * The payment.failed event of one payment as the table's stream would deliver it: taken from the
 * local feed and put back. Its payment must be one no other function settles during the run, so the
 * consumer does a failure's work (enrollment included) in every round, not a settled payment's.
 */
async function peekFailedEvent(paymentId: string): Promise<Record<string, unknown>> {
  const feed = localRuntime().events;
  const items = await feed.take();
  feed.capture(items);
  const item = items.find((candidate) => candidate.type === 'payment.failed' && (candidate.data as { id?: string }).id === paymentId);
  if (!item) throw new Error(`seeding wrote no payment.failed for ${paymentId}`);
  return item;
}

/**
 * Every job seeding scheduled, one per kind, as EventBridge Scheduler would invoke its function, and
 * the ones queued by something seeding does not do: the tenant's calendar scan (the daily sweep) and
 * a campaign sweep (a re-activation).
 */
async function scheduledJobs(tenant: Tenant, campaignId: string): Promise<Partial<Record<JobKind, JobEvent>>> {
  const now = runtime.clock.now();
  const due = await localRuntime().scheduler.due(new Date(now.getTime() + 366 * 86_400_000));
  const jobs: Partial<Record<JobKind, JobEvent>> = {};
  // Due at seeding rather than at its cooldown's end, so the handler's lag metric is not negative.
  for (const { runAt: _runAt, ...job } of due) jobs[job.kind] ??= { ...job, scheduledAt: now.toISOString() };
  const scan: CalendarScanJob = { day: now.toISOString().slice(0, 10), part: 0, cursor: null };
  jobs['calendar-scan'] ??= { jobId: calendarScanJobId(tenant, scan.day, scan.part), kind: 'calendar-scan', tenant, payload: { ...scan }, scheduledAt: now.toISOString() };
  // A re-activation's sweep over the bench campaign's enrollment, as a pause and an activation would queue it.
  const sweep: CampaignSweepJob = { campaign_id: campaignId, action: 'release', event_id: newId('evt', now), part: 0, cursor: null };
  jobs['campaign-sweep'] ??= { jobId: campaignSweepJobId(sweep.event_id, 0), kind: 'campaign-sweep', tenant, payload: { ...sweep }, scheduledAt: now.toISOString() };
  return jobs;
}

/** A cancel completion as the complete route queues it when storing fails, for the queue worker. */
async function queuedCompletion(merchantId: string, customer: string, subscription: string): Promise<SQSRecord> {
  const { token } = await startSession(merchantId, { customer, subscription });
  const now = runtime.clock.now();
  const session = await readSession(token, now);
  const completion = completionOf(tokenHash(token), session, { outcome: 'saved', reason: 'too_expensive' }, now);
  return toQueueRecord({ messageId: `bench-${session.session_id}`, body: JSON.stringify(completion), receiveCount: 1 });
}

export async function seedFixture(): Promise<BenchFixture> {
  const { merchantId, keys } = await newMerchant({ name: 'Bench merchant', rateLimitOverride: MAX_CUSTOM_RATE_LIMIT });
  const key = keys.test_admin;
  // An address nothing listens on: deliveries fail fast and never leave the machine.
  const endpoint = { url: 'http://127.0.0.1:9/bench-hooks', events: ['*'] };
  const webhookEndpoint = await created('/v1/webhooks', key, endpoint);
  const spareEndpoint = await created('/v1/webhooks', key, endpoint);
  const dunning = { name: 'Bench dunning', trigger: 'payment_failed', steps: [{ channel: 'email', template_id: 'tpl_payment_failed', subject: 'Payment failed', delay_hours: 0 }] };
  const campaign = await created('/v1/campaigns', key, dunning);
  const activated = await call('POST', `/v1/campaigns/${campaign}/activate`, { key });
  if (activated.status !== 200) throw new Error(`activating the bench campaign answered ${activated.status}`);
  const spareCampaign = await created('/v1/campaigns', key, { ...dunning, name: 'Bench spare' });
  const spareKey = await created('/v1/api-keys', key, { name: 'bench spare', scopes: ['read'] });
  const template = { channel: 'email', name: 'Bench reminder', subject: 'Payment due', html: '<p>{{ formatted_amount }} is due</p>', text: '{{ formatted_amount }} is due' };
  const messageTemplate = await created('/v1/templates', key, template);
  const spareTemplate = await created('/v1/templates', key, { ...template, name: 'Bench spare' });
  const webhookPath = await connect(key, 'acme', { webhook_secret: GENERIC_SECRET });
  const connectionId = webhookPath.split('/').pop()!;

  const main = await failure(webhookPath, 'insufficient_funds');
  const spare = await failure(webhookPath, 'expired_card');
  // A hard decline of its own, dunned by the bench campaign and touched by no route or job.
  const streamed = await failure(webhookPath, 'expired_card');
  const streamRecord = toStreamRecord(await peekFailedEvent(streamed.paymentId));
  await drainEvents();

  const cancelFlow = await activeFlow(key);
  const { token } = await startSession(merchantId, { customer: main.event.customer.id, subscription: main.event.subscription.id });
  const deliveries = await call('GET', `/v1/webhooks/${webhookEndpoint}/deliveries`, { key });
  const deliveryId = deliveries.body?.data?.[0]?.id;
  if (typeof deliveryId !== 'string') throw new Error(`the bench endpoint has no delivery: ${JSON.stringify(deliveries.body)}`);

  const payment = await call('GET', `/v1/payments/${main.paymentId}`, { key });
  await runtime.db.send(new PutCommand({ TableName: runtime.tableName, Item: { pk: FLOOR_PARTITION, sk: main.paymentId, ...payment.body.data } }));

  const tenant: Tenant = { merchantId, environment: 'test' };
  const link = { customer_id: main.customerId, campaign_id: campaign, id: 'enr_bench', payment_id: main.paymentId };
  const updateToken = new URL((await issueUpdateLink({ updatePage }, tenant, link, 'email', runtime.clock.now())).url).pathname.split('/').pop()!;
  return {
    tenant,
    adminKey: key,
    pathValues: {
      'payments:id': main.paymentId,
      'customers:id': main.customerId,
      'spare:customers:id': spare.customerId,
      'campaigns:id': campaign,
      'spare:campaigns:id': spareCampaign,
      'cancel-flows:id': cancelFlow,
      'api-keys:id': spareKey,
      'webhooks:id': webhookEndpoint,
      'spare:webhooks:id': spareEndpoint,
      'deliveries:delivery_id': deliveryId,
      'templates:id': messageTemplate,
      'spare:templates:id': spareTemplate,
      'update:token': updateToken,
      'processors:psp': 'acme',
      'cancel-session:token': token,
      'webhooks:psp': 'acme',
      'webhooks:connection_id': connectionId,
      'stripe:connection_id': connectionId,
      'braintree:connection_id': connectionId,
    },
    jobs: await scheduledJobs(tenant, campaign),
    streamRecord,
    queueRecord: await queuedCompletion(merchantId, spare.event.customer.id, spare.event.subscription.id),
    floorId: main.paymentId,
  };
}
